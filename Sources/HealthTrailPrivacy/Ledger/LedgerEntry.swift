import Crypto
import Foundation

/// One line of the ledger file.
///
/// Three kinds. The first line of every ledger opens it; then two lines per release:
///
/// ```
/// {"seq":1,"prev":"000…0","time_utc":"2024-06-03T04:00:00Z","status":"opened","format":2,"subject":"s_3b9e…","limit_rho":"2"}
/// {"seq":2,"prev":"<mac of line 1>","time_utc":"2024-06-03T04:00:00Z","status":"reserved","release_id":"weekly_resting_hr","fingerprint":"9f2c…","mechanism":"discrete_laplace","epsilon":"1/2","unit":"day","first":"2023-01-02","last":"2023-01-08","output":"2-weekly_resting_hr.result","output_sha256":"5d1e…"}
/// {"seq":3,"prev":"<mac of line 2>","time_utc":"2024-06-03T04:00:01Z","status":"published","release_id":"weekly_resting_hr","fingerprint":"9f2c…","reservation":2,"output_sha256":"5d1e…"}
/// ```
///
/// `seq` is the line number (from 1). `prev` is the lowercase hex HMAC-SHA256, under the
/// ledger's key, of the previous line's bytes (without its `\n`); 64 zeros for the first line.
///
/// - `opened` (line 1 only) fixes what the ledger is for: `subject`, the tag of the data
///   subject under the key (`LedgerKey.subjectTag`), and the budget limit, any of
///   `limit_epsilon`, `limit_rho`, and `limit_renyi_epsilon` with `limit_renyi_delta` (an
///   (ε, δ) target held by Rényi accounting), each an exact fraction. Neither ever changes.
///   Ledgers made since HealthTrail named the ledger in its releases add `nonce`, 32 random hex
///   digits that make the line, and so the ledger's identity, unique.
/// - `reserved` carries the cost: exactly one of `epsilon` (pure ε-DP) or `rho` (ρ-zCDP), an
///   exact fraction; `unit`, the privacy unit the cost protects (`day`, `workout`, `person`);
///   and for day and workout units the local dates the release reads, `first` and `last`.
///   `output` names the stored noisy result in the `<ledger>.d/` folder, `output_sha256` its
///   SHA-256.
/// - `published` points back at its reservation by `reservation` (a seq) and spends nothing.
package struct LedgerEntry: Equatable {
    package enum Status: String { case opened, reserved, published }

    /// The file format the ledger writes and reads (in the `opened` line).
    package static let format = 2

    package var seq: Int
    package var prev: String
    package var timeUTC: String
    package var status: Status
    /// Reserved and published entries (empty in the `opened` line).
    package var releaseID = ""
    package var fingerprint = ""
    /// Reserved entries only.
    package var mechanism: String?
    package var cost: PrivacyCost?
    package var unit: String?
    package var period: LedgerPeriod?
    package var output: String?
    /// Published entries only: the seq of the reserved entry.
    package var reservation: Int?
    package var outputSHA256 = ""
    /// The `opened` line only.
    package var subject: String?
    package var limit: BudgetLimit?
    /// The `opened` line of a ledger made by this version on: 32 random hex digits, so that two
    /// ledgers opened alike in the same second differ (`BudgetLedger.identity()`). Written, never
    /// read: the identity is a MAC of the line's bytes, and an earlier ledger has none.
    package var nonce: String?

    package static let genesis = String(repeating: "0", count: 64)

    /// The line, without its `\n`. Keys in a fixed order, so a person can read it; the chain
    /// hashes the bytes as written, so the order is not what makes it verifiable.
    package init(
        seq: Int, prev: String, timeUTC: String, status: Status, releaseID: String = "", fingerprint: String = "",
        mechanism: String? = nil, cost: PrivacyCost? = nil, unit: String? = nil, period: LedgerPeriod? = nil,
        output: String? = nil, reservation: Int? = nil, outputSHA256: String = ""
    ) {
        (self.seq, self.prev, self.timeUTC, self.status, self.releaseID, self.fingerprint) = (seq, prev, timeUTC, status, releaseID, fingerprint)
        (self.mechanism, self.cost, self.unit, self.period, self.output) = (mechanism, cost, unit, period, output)
        (self.reservation, self.outputSHA256) = (reservation, outputSHA256)
    }

    package func encoded() -> String {
        var fields: [(String, String)] = [
            ("seq", "\(seq)"), ("prev", json(prev)), ("time_utc", json(timeUTC)), ("status", json(status.rawValue)),
        ]
        if status == .opened {
            fields += [("format", "\(Self.format)"), ("subject", json(subject ?? ""))]
            if let epsilon = limit?.epsilon { fields.append(("limit_epsilon", json(epsilon.description))) }
            if let rho = limit?.rho { fields.append(("limit_rho", json(rho.description))) }
            if let nonce { fields.append(("nonce", json(nonce))) }
            if let renyi = limit?.renyi {
                fields += [("limit_renyi_epsilon", json(renyi.epsilon.description)), ("limit_renyi_delta", json(renyi.delta.description))]
            }
            return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        }
        fields += [("release_id", json(releaseID)), ("fingerprint", json(fingerprint))]
        switch status {
        case .opened: break
        case .reserved:
            fields.append(("mechanism", json(mechanism ?? "")))
            switch cost {
            case .pureDP(let epsilon)?: fields.append(("epsilon", json(epsilon.description)))
            case .zCDP(let rho)?: fields.append(("rho", json(rho.description)))
            case nil: break
            }
            fields.append(("unit", json(unit ?? "")))
            if let period { fields += [("first", json(period.first)), ("last", json(period.last))] }
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
        if status == .opened {
            guard int("format") == format else { return (nil, "not a ledger of format \(format)") }
            guard let subject = string("subject"), isSubjectTag(subject) else { return (nil, "no subject") }
            let epsilon = string("limit_epsilon").map(canonicalPositive), rho = string("limit_rho").map(canonicalPositive)
            let renyiEpsilon = string("limit_renyi_epsilon").map(canonicalPositive)
            let renyiDelta = string("limit_renyi_delta").map(canonicalPositive)
            if epsilon == .some(nil) || rho == .some(nil) || renyiEpsilon == .some(nil) || renyiDelta == .some(nil)
                || (epsilon == nil && rho == nil && renyiEpsilon == nil) || ((renyiEpsilon == nil) != (renyiDelta == nil))
            {
                return (
                    nil,
                    "the limit needs limit_epsilon, limit_rho, or limit_renyi_epsilon with limit_renyi_delta, "
                        + "each a positive fraction"
                )
            }
            var entry = LedgerEntry(seq: seq, prev: prev, timeUTC: time, status: status)
            entry.subject = subject
            var renyi: BudgetLimit.RenyiLimit?
            if let e = renyiEpsilon ?? nil, let d = renyiDelta ?? nil { renyi = BudgetLimit.RenyiLimit(epsilon: e, delta: d) }
            entry.limit = BudgetLimit(epsilon: epsilon ?? nil, rho: rho ?? nil, renyi: renyi)
            return (entry, "")
        }
        guard let release = string("release_id"), BudgetLedger.isValidReleaseID(release) else { return (nil, "no release_id") }
        guard let fingerprint = string("fingerprint"), isHex64(fingerprint) else { return (nil, "no fingerprint") }
        guard let sha = string("output_sha256"), isHex64(sha) else { return (nil, "no output_sha256") }
        var entry = LedgerEntry(
            seq: seq, prev: prev, timeUTC: time, status: status, releaseID: release,
            fingerprint: fingerprint, outputSHA256: sha)
        switch status {
        case .opened: break
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
            guard let unit = string("unit"), BudgetLedger.isValidMechanism(unit) else { return (nil, "no unit") }
            switch (string("first"), string("last")) {
            case (nil, nil): break
            case (let first?, let last?):
                guard let period = LedgerPeriod(first: first, last: last) else { return (nil, "first and last are not dates in order") }
                entry.period = period
            default: return (nil, "first and last go together")
            }
            guard let output = string("output"), output == resultName(seq: seq, release: release) else {
                return (nil, "no output name")
            }
            entry.mechanism = mechanism
            entry.unit = unit
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

    package static func isSubjectTag(_ s: String) -> Bool {
        s.utf8.count == 34 && s.hasPrefix("s_") && isLowerHex(s.dropFirst(2))
    }

    private static func isLowerHex(_ s: Substring) -> Bool {
        s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
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
