import Crypto
import Foundation

/// The secret key a ledger is bound to: it keys the hash chain, the head and every release's
/// fingerprint (HMAC-SHA256), and names the ledger's subject.
///
/// Without the key, nobody can write a line the ledger accepts, recompute the chain after
/// cutting lines off, or test a guess about what a fingerprint covers. The key is read from
/// a file by the caller (the budget folder's own `ledger.key`).
package struct LedgerKey: Sendable {
    private let key: SymmetricKey

    /// A key from at least 32 bytes of secret material.
    package init(material: [UInt8]) {
        precondition(material.count >= 32, "a ledger key needs at least 32 bytes of secret material")
        key = SymmetricKey(data: material)
    }

    /// Lowercase hex HMAC-SHA256 of `bytes`: 64 digits.
    package func mac<D: DataProtocol>(_ bytes: D) -> String {
        HMAC<SHA256>.authenticationCode(for: bytes, using: key).map { String(format: "%02x", $0) }.joined()
    }

    /// The tag naming a data subject under this key: `s_` and 32 hex digits of
    /// HMAC-SHA256(key, "healthtrail ledger subject\n" + name). The same name and key always
    /// give the same tag; the name cannot be read back from it.
    package func subjectTag(_ name: String) -> String {
        "s_" + mac(Array("healthtrail ledger subject\n\(name)".utf8)).prefix(32)
    }
}
