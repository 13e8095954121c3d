import Crypto
import Foundation

/// One line of the ledger file.
///
/// Two kinds, written in this order for a release:
///
/// ```
/// {"seq":1,"prev":"000…0","time_utc":"2024-06-03T04:00:00Z","status":"reserved","release_id":"weekly_resting_hr","fingerprint":"9f2c…","mechanism":"discrete_laplace","epsilon":"1/2","output":"1-weekly_resting_hr.result","output_sha256":"5d1e…"}
/// {"seq":2,"prev":"<sha256 of line 1>","time_utc":"2024-06-03T04:00:01Z","status":"published","release_id":"weekly_resting_hr","fingerprint":"9f2c…","reservation":1,"output_sha256":"5d1e…"}
/// ```
///
/// `seq` is the line number (from 1). `prev` is the lowercase hex SHA-256 of the previous line's
/// bytes (without its `\n`), 64 zeros for the first line. A `reserved` entry carries the cost:
/// exactly one of `epsilon` (pure ε-DP) or `rho` (ρ-zCDP), as an exact fraction string; `output`
/// names the stored noisy result in the `<ledger>.d/` folder, `output_sha256` its hash. A
/// `published` entry points back at its reservation by `reservation` (a seq) and spends nothing.
package struct LedgerEntry: Equatable {
    package enum Status: String { case reserved, published }

    package var seq: Int
    package var prev: String
    package var timeUTC: String
    package var status: Status
    package var releaseID: String
    package var fingerprint: String
    /// Reserved entries only.
    package var mechanism: String?
    package var cost: PrivacyCost?
    package var output: String?
    /// Published entries only: the seq of the reserved entry.
    package var reservation: Int?
    package var outputSHA256: String

    package static let genesis = String(repeating: "0", count: 64)

    /// The line, without its `\n`. Keys in a fixed order, so a person can read it; the chain
    /// hashes the bytes as written, so the order is not what makes it verifiable.
    package func encoded() -> String {
        var fields: [(String, String)] = [
            ("seq", "\(seq)"), ("prev", json(prev)), ("time_utc", json(timeUTC)), ("status", json(status.rawValue)),
            ("release_id", json(releaseID)), ("fingerprint", json(fingerprint)),
        ]
        switch status {
        case .reserved:
            fields.append(("mechanism", json(mechanism ?? "")))
            switch cost {
            case .pureDP(let epsilon)?: fields.append(("epsilon", json(epsilon.description)))
            case .zCDP(let rho)?: fields.append(("rho", json(rho.description)))
            case nil: break
            }
            fields.append(("output", json(output ?? "")))
        case .published:
            fields.append(("reservation", "\(reservation ?? 0)"))
        }
        fields.append(("output_sha256", json(outputSHA256)))
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Parses one line; nil when it is not a well-formed entry (the caller names the line).
    /// Only the canonical forms the ledger writes are accepted (fractions reduced, hex lowercase).
    package static func parse(_ line: ArraySlice<UInt8>) -> (entry: LedgerEntry?, problem: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            return (nil, "not a JSON object")
        }
        func string(_ key: String) -> String? { object[key] as? String }
        func int(_ key: String) -> Int? { object[key] as? Int }
        guard let seq = int("seq") else { return (nil, "no seq") }
        guard let prev = string("prev"), isHex64(prev) else { return (nil, "no prev hash") }
        guard let time = string("time_utc"), time.utf8.count == 20 else { return (nil, "no time_utc") }
        guard let statusText = string("status"), let status = Status(rawValue: statusText) else { return (nil, "no status") }
        guard let release = string("release_id"), BudgetLedger.isValidReleaseID(release) else { return (nil, "no release_id") }
        guard let fingerprint = string("fingerprint"), isHex64(fingerprint) else { return (nil, "no fingerprint") }
        guard let sha = string("output_sha256"), isHex64(sha) else { return (nil, "no output_sha256") }
        var entry = LedgerEntry(
            seq: seq, prev: prev, timeUTC: time, status: status, releaseID: release,
            fingerprint: fingerprint, outputSHA256: sha)
        switch status {
        case .reserved:
            guard let mechanism = string("mechanism"), BudgetLedger.isValidMechanism(mechanism) else {
                return (nil, "no mechanism")
            }
            let epsilon = string("epsilon").map(canonicalPositive), rho = string("rho").map(canonicalPositive)
            switch (epsilon, rho) {
            case (let e??, nil): entry.cost = .pureDP(epsilon: e)
            case (nil, let r??): entry.cost = .zCDP(rho: r)
            default: return (nil, "a reserved entry needs exactly one of epsilon or rho, a positive fraction")
            }
            guard let output = string("output"), output == resultName(seq: seq, release: release) else {
                return (nil, "no output name")
            }
            entry.mechanism = mechanism
            entry.output = output
        case .published:
            guard let reservation = int("reservation") else { return (nil, "no reservation") }
            entry.reservation = reservation
        }
        return (entry, "")
    }

    /// The name of a reservation's stored result inside `<ledger>.d/`.
    package static func resultName(seq: Int, release: String) -> String { "\(seq)-\(release).result" }

    package static func sha256Hex<D: DataProtocol>(_ bytes: D) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    package static func isHex64(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    private static func canonicalPositive(_ text: String) -> Rational? {
        guard let r = Rational(text), LedgerArithmetic.isPositive(r), r.description == text else { return nil }
        return r
    }

    private func json(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
