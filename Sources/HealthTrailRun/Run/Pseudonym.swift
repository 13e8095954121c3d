import Crypto
import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#endif

/// The secret key that turns people's names (or archive ids) into pseudonyms for partial
/// aggregates: `p_` + the first 16 hex digits of HMAC-SHA256(key, name).
///
/// Why a keyed hash: a plain hash of a name can be recomputed by anyone over a list of likely
/// names, confirming who is in a cohort. HMAC with a secret key is a pseudorandom function:
/// without the key a pseudonym says nothing about the name, and a guessed name cannot be
/// confirmed either. Keep the key with whoever runs the cohort, never beside the partials.
///
/// Why 64 bits suffice: pseudonyms only need to be distinct within one cohort. For n people the
/// chance that two share one is about n²/2⁶⁵: for 10⁴ people, 10⁸/3.7·10¹⁹ ≈ 3·10⁻¹². Even
/// then nothing is silently wrong: `PartialAggregate.merge` refuses a person found in two
/// partials.
///
/// The key file is the 64 hex digits `healthtrail keygen` writes (or at least 32 raw bytes),
/// readable by its owner only, as ssh demands of private keys.
package struct PseudonymKey: Sendable {
    /// The least key material accepted: 256 bits, the size of HMAC-SHA256's output.
    package static let minimumBytes = 32

    private let key: SymmetricKey
    /// The key's bytes, which a budget ledger's key is made from (`LedgerLocation`).
    package let material: [UInt8]

    /// Reads the key at `path`.
    ///
    /// - Throws: `InputError` naming the file: missing, not a regular file, accessible by group
    ///   or others, or shorter than 32 bytes of key material. The key itself is never printed.
    ///
    /// - Parameter followingLinks: false refuses a symbolic link (an output folder's own key,
    ///   where a planted link would choose the key).
    package init(path: String, followingLinks: Bool = true) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            if errno == ENOENT { throw InputError(file: path, "no such key file (make one with `healthtrail keygen FILE`)") }
            throw InputError(file: path, "cannot read the key file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        // The mode of the file opened, not of the path: it cannot change between check and read.
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw InputError(file: path, "the key file is not a regular file")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw InputError(file: path, "the key file is accessible by group or others (mode 0\(String(mode, radix: 8))): chmod 600 it")
        }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = readSome(fd, into: &chunk)
            guard n >= 0 else { throw InputError(file: path, "cannot read the key file: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        let material = Self.keyMaterial(bytes)
        guard material.count >= Self.minimumBytes else {
            throw InputError(
                file: path,
                "the key file holds \(material.count) bytes of key material; at least "
                    + "\(Self.minimumBytes) are needed (make one with `healthtrail keygen FILE`)")
        }
        key = SymmetricKey(data: material)
        self.material = material
    }

    /// `p_` + the first 16 hex digits of HMAC-SHA256(key, UTF-8 of `name`): the same name and
    /// key always give the same pseudonym.
    package func pseudonym(for name: String) -> String { tag(for: name, prefix: "p_") }

    /// `prefix` + the first 16 hex digits of HMAC-SHA256(key, UTF-8 of `text`).
    package func tag(for text: String, prefix: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key)
        return prefix + code.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Writes a new key: 32 bytes from the system's secure random source, as 64 hex digits and a
    /// newline, mode 0600.
    ///
    /// - Throws: `InputError` naming the file when it already exists (a key is never replaced:
    ///   the pseudonyms made with it would stop matching) or cannot be written.
    package static func generate(at path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { throw InputError(file: path, "already exists: refusing to overwrite a key") }
            throw InputError(file: path, "cannot create the key file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        // 256 bits from the system's cryptographically secure generator (getrandom on Linux).
        var random = SystemRandomNumberGenerator()
        let text = (0..<32).map { _ in String(format: "%02x", random.next() as UInt8) }.joined() + "\n"
        // 0600 whatever the umask, and synced before it is used.
        var failed = fchmod(fd, 0o600) == 0 ? writeFully(fd, Array(text.utf8)) : errno
        if failed == 0 && fsync(fd) != 0 && errno != EINVAL { failed = errno }
        guard failed == 0 else {
            unlink(path)
            throw InputError(file: path, "cannot write the key file: \(String(cString: strerror(failed)))")
        }
    }

    /// Hex text (optionally ending in whitespace) is decoded; anything else is the key as is.
    static func keyMaterial(_ bytes: [UInt8]) -> [UInt8] {
        var text = bytes[...]
        while let last = text.last, [0x0A, 0x0D, 0x20, 0x09].contains(last) { text = text.dropLast() }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        let nibbles = text.compactMap(nibble)
        guard !text.isEmpty, nibbles.count == text.count, nibbles.count % 2 == 0 else { return bytes }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }
}
