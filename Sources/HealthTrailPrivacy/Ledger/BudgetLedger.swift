import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The privacy budget ledger: an append-only, keyed, hash-chained record of every
/// differentially private release of one data subject, kept between cron runs.
///
/// ## Files
///
/// For a ledger at `P`:
/// - `P`: JSON Lines, one entry per line (see `LedgerEntry` for the fields and a sample). The
///   first line opens the ledger: the subject's tag and the budget limit, fixed for good. Each
///   line carries `prev`, the HMAC-SHA256 under the ledger's key of the line before it, so a
///   line changed, deleted, moved or cut breaks the chain, and only the key's holder could
///   mend it. Appended with `O_APPEND` and fsynced; never rewritten.
/// - `P.head`: `{"seq":N,"mac":"…"}`, the number and MAC of the last line, replaced atomically
///   after every append. A chain alone cannot tell that its last lines were deleted (deleting
///   the last release would refund its budget); the head can. A head whose ledger is gone is
///   refused too: deleting the ledger does not reset the budget.
/// - `P.d/<seq>-<release>.result`: the noisy result of each reservation, exactly as drawn,
///   written atomically *before* its line is appended; the line records its SHA-256.
/// - `P.lock`: the `flock` that serialises every operation across processes.
///
/// Files are created 0600 and folders 0700.
///
/// ## Protocol (crash safety)
///
/// 1. `lookup`: a release with the same id and fingerprint already recorded ⇒ publish its
///    stored result; nothing is spent and no fresh noise is ever drawn. The caller makes the
///    fingerprint from public things only (the release's terms and its period, keyed with
///    `fingerprint(of:)`), never from the data: whether a release is drawn or answered from
///    the ledger then tells an observer nothing about the data.
/// 2. Otherwise the caller draws the noise, then `reserve`s: the budget is checked, the result
///    stored, and a `reserved` line appended. Spend is on disk before anything is published.
/// 3. The caller publishes `reservation.release.result` (e.g. writes `dp/<release>.csv`), then
///    calls `markPublished`, which appends a `published` line.
///
/// A run killed between 2 and 3 leaves a `reserved` line without its `published` line; the next
/// run's `lookup` returns it with `isPublished == false` and its stored result, which the caller
/// publishes and marks: the same noise, no new spend. A run killed before the line is appended
/// leaves at most a stray result file (removed later) and nothing spent or published.
/// `release(_:fingerprint:mechanism:cost:unit:period:draw:publish:)` runs the whole protocol.
///
/// ## Accounting
///
/// Exact fractions (`Rational`, shared with the noise mechanisms) for ε and ρ. The limit holds
/// for every day, every workout and the person, each on its own: a workout is charged the
/// releases of workouts, of its day and of the person; a day those of days and of the person;
/// the person those of the person (`Charges.units(inside:)`). Releases of workouts are not
/// charged to days: a day holds any number of workouts. Within a unit, pure ε releases compose
/// by basic composition (Σε) and every release is also charged in zCDP, ρ for Gaussian and ε²/2
/// for Laplace, summed. Day and workout releases charge only the days of their period: the
/// spend of a unit is its most-charged day. Person releases charge everything. Each limit in
/// `BudgetLimit` that is configured must hold; see `BudgetLimit` for why. An (ε, δ) limit
/// (`BudgetLimit.renyi`) is checked on the composed Rényi curve (`RenyiAccountant`), in
/// `Double` with a margin that refuses, never admits, a spend rounding could have hidden.
///
/// ## Verification
///
/// Every operation takes the lock, reads the whole file and verifies it: each line parses,
/// its `seq` is its line number, its `prev` is the MAC of the line before (64 zeros for the
/// first), the first line opens the ledger for this subject and this limit, each `published`
/// line matches an open reservation, the last line is complete and agrees with the head. Any
/// break is a `LedgerError(.tampered)` naming the line, e.g.
/// `ledger out/privacy-ledger.jsonl: line 3: hash chain broken (edited by hand?)`, and the
/// object then refuses everything; another subject's ledger, another key, or another limit is
/// a `LedgerError(.mismatch)`. (Whoever holds the key can still write anything: the key is
/// what the owner keeps.) A ledger is a few lines per release, so re-reading it costs nothing.
///
/// `@unchecked Sendable`: `state` and `failure`, its only variables, and `fileLock` are used
/// with `mutex` held; the other properties are constants.
package final class BudgetLedger: @unchecked Sendable {
    /// The ledger file.
    package let path: String
    /// The configured total, fixed in the ledger's first line.
    package let limit: BudgetLimit
    /// The tag of the data subject the ledger belongs to (`LedgerKey.subjectTag`).
    package let subject: String
    /// Where stored results live: `<path>.d`.
    package var resultsFolder: String { path + ".d" }

    /// The file name used beside the outputs when the configuration names no ledger path.
    package static let defaultFileName = "privacy-ledger.jsonl"

    private var headPath: String { path + ".head" }
    private let key: LedgerKey
    private let files: LedgerFiles
    private let fileLock: LedgerFileLock
    private let mutex = NSLock()
    private let lockTimeout: Double
    private var state = LedgerState()
    private var failure: LedgerError?

    /// Opens (or creates) the ledger at `path` and verifies it.
    ///
    /// - Parameters:
    ///   - limit: the configured total; at least one of ε and ρ, each positive. A new ledger
    ///     records it in its first line; an existing one must have been opened with it.
    ///   - key: the key the chain, the head and the fingerprints are made with.
    ///   - subject: the data subject's name (a person, a cohort); only its tag is written.
    ///   - lockTimeout: seconds to wait for another run holding the ledger.
    /// - Throws: `LedgerError` — `.tampered` when the file does not verify, `.mismatch` when
    ///   it belongs to another subject or key or was opened with another limit, `.invalid` for
    ///   a missing or non-positive limit, `.io`, `.locked`.
    package init(path: String, limit: BudgetLimit, key: LedgerKey, subject: String, lockTimeout: Double = 60) throws {
        self.path = path
        self.limit = limit
        self.key = key
        self.subject = key.subjectTag(subject)
        self.lockTimeout = lockTimeout
        files = LedgerFiles(ledger: path)
        guard limit.epsilon != nil || limit.rho != nil || limit.renyi != nil else {
            throw LedgerError(.invalid, path: path, "no privacy budget configured: give a total ε, ρ or (ε, δ)")
        }
        for case let total? in [limit.epsilon, limit.rho, limit.renyi?.epsilon, limit.renyi?.delta]
        where !LedgerArithmetic.isPositive(total) {
            throw LedgerError(.invalid, path: path, "the budget limit (\(limit)) must be positive")
        }
        if let delta = limit.renyi?.delta, !LedgerArithmetic.greater(Rational(1), delta) {
            throw LedgerError(.invalid, path: path, "the budget limit (\(limit)) needs δ below 1")
        }
        guard !path.isEmpty, !path.hasSuffix("/") else { throw LedgerError(.invalid, path: path, "not a file path") }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try files.makeFolder(String(path[..<slash])) }
        try files.makeFolder(path + ".d")
        fileLock = try LedgerFileLock(path: path + ".lock", ledger: path)
        try withLock { _ in }
    }

    /// What has been spent on the most-charged privacy unit (its most-charged day, for day and
    /// workout units), as of this object's last operation (each operation re-reads the file,
    /// so this includes other processes' releases up to then).
    package var spent: Spent {
        mutex.lock(); defer { mutex.unlock() }
        return state.charges.mostSpent
    }

    /// What has been spent on `unit` at its most-charged day of `period` (nil: anywhere), each
    /// figure at its own largest: releases of the unit and of every unit containing it.
    package func spent(unit: String, period: LedgerPeriod? = nil) -> Spent {
        mutex.lock(); defer { mutex.unlock() }
        return Spent.largest(state.charges.spentPoints(unit: unit, period: period))
    }

    /// The keyed fingerprint of `bytes` under the ledger's key: lowercase hex HMAC-SHA256. A
    /// fingerprint made from public things (a release's terms and period) names a release
    /// without letting anyone who lacks the key test guesses about it.
    package func fingerprint<D: DataProtocol>(of bytes: D) -> String { key.mac(bytes) }

    /// The recorded release with this id on this data, with its stored result, or nil when there
    /// is none. A result whose `isPublished` is false was reserved by a run that stopped before
    /// publishing: publish it and call `markPublished(_:)`.
    package func lookup(release: String, fingerprint: String) throws -> StoredRelease? {
        try withLock { state in
            guard let seq = state.bySubject[LedgerState.subject(release, fingerprint.lowercased())] else { return nil }
            return try stored(seq, state)
        }
    }

    /// Records the spend of a new release and stores its noisy result, before anything is
    /// published.
    ///
    /// - Parameters:
    ///   - release: a stable name for the release, `[A-Za-z0-9_.-]`, e.g. `weekly_resting_hr`.
    ///   - fingerprint: hex SHA-256 of exactly the data the release reads (see
    ///     `fingerprint(of:)`): the same fingerprint means the same answer may be given again.
    ///   - mechanism: `discrete_laplace` (needs a `.pureDP` cost), `discrete_gaussian` (needs
    ///     `.zCDP`), or another `[a-z0-9_]` name.
    ///   - cost: the release's privacy cost, positive.
    ///   - noisyResult: the result, noise already added, as it will be published.
    /// - Returns: the reservation. If this release on this data was already recorded (another run
    ///   got there first), it is returned with `charged == false` and its stored result; the
    ///   `noisyResult` passed in is discarded and must not be published.
    /// - Throws: `LedgerError(.overBudget)` naming the release, its cost, what is spent and the
    ///   limit, with the files left byte-for-byte unchanged; `.tampered`, `.invalid`, `.io`.
    package func reserve(
        release: String, fingerprint: String, mechanism: String, cost: PrivacyCost,
        unit: String = "person", period: LedgerPeriod? = nil, noisyResult: Data
    ) throws -> Reservation {
        let fingerprint = fingerprint.lowercased()
        try validate(release: release, fingerprint: fingerprint, mechanism: mechanism, cost: cost, unit: unit)
        let charge = Charge(unit: unit, period: unit == "person" ? nil : period, cost: cost)
        return try withLock { state in
            if let seq = state.bySubject[LedgerState.subject(release, fingerprint)] {
                return Reservation(release: try stored(seq, state), charged: false)
            }
            try checkBudget(release: release, charge, charges: state.charges)
            return try appendReservation(
                release: release, fingerprint: fingerprint, mechanism: mechanism, charge: charge,
                noisyResult: noisyResult, &state)
        }
    }

    /// Stores `noisyResult` and appends its `reserved` line (the budget already checked).
    private func appendReservation(
        release: String, fingerprint: String, mechanism: String, charge: Charge,
        noisyResult: Data, _ state: inout LedgerState
    ) throws -> Reservation {
        let cost = charge.cost
        let seq = state.lineCount + 1
        let name = LedgerEntry.resultName(seq: seq, release: release)
        files.removeFiles(in: resultsFolder, prefix: "\(seq)-")
        files.removeFiles(in: resultsFolder, prefix: ".tmp-")
        try files.writeAtomically([UInt8](noisyResult), to: resultsFolder + "/" + name)
        let entry = LedgerEntry(
            seq: seq, prev: state.lastHash, timeUTC: BudgetLedger.now(), status: .reserved,
            releaseID: release, fingerprint: fingerprint, mechanism: mechanism, cost: cost,
            unit: charge.unit, period: charge.period, output: name, outputSHA256: LedgerEntry.sha256Hex(noisyResult))
        try append(entry, &state)
        return Reservation(
            release: StoredRelease(
                seq: seq, releaseID: release, fingerprint: fingerprint,
                mechanism: mechanism, cost: cost, timeUTC: entry.timeUTC,
                result: noisyResult, resultSHA256: entry.outputSHA256,
                isPublished: false), charged: true)
    }

    /// Records that the reservation `seq` has been published. Publishing one that is already
    /// marked does nothing (no line is appended).
    package func markPublished(_ seq: Int) throws {
        try withLock { state in
            guard let reserved = state.reservations[seq] else {
                throw LedgerError(.invalid, path: path, "no reservation with seq \(seq) to mark published")
            }
            if state.published.contains(seq) { return }
            let entry = LedgerEntry(
                seq: state.lineCount + 1, prev: state.lastHash, timeUTC: BudgetLedger.now(),
                status: .published, releaseID: reserved.releaseID,
                fingerprint: reserved.fingerprint, reservation: seq,
                outputSHA256: reserved.outputSHA256)
            try append(entry, &state)
        }
    }

    /// The ledger's identity: 16 hex digits of HMAC-SHA256, under the ledger's key, of its first
    /// line, which names the subject and the limit, the time the ledger was opened and (from
    /// this version on) a random nonce. Every release published from this ledger carries it, so
    /// files drawn under two ledgers (a budget started over: another key, subject or budget
    /// folder, or a ledger deleted and made again) show two identities. Without the key nobody
    /// can make a ledger with a chosen identity.
    package func identity() throws -> String {
        try withLock { state in state.identity }
    }

    /// The ids of every release the ledger has reserved, under any terms.
    package func releasedIDs() throws -> Set<String> {
        try withLock { state in Set(state.reservations.values.map(\.releaseID)) }
    }

    /// Reservations whose run stopped before publishing, oldest first, with their stored results.
    package func pending() throws -> [StoredRelease] {
        try withLock { state in
            try state.reservations.keys.sorted().filter { !state.published.contains($0) }.map { try stored($0, state) }
        }
    }

    /// The whole protocol for one release: answers from the ledger when this release on this
    /// data is recorded (publishing the stored result again, and completing a release a killed
    /// run left reserved), else draws, reserves, publishes and marks.
    ///
    /// - Parameters:
    ///   - draw: computes the noisy result; called only when the release is new.
    ///   - publish: writes the result where it is published (idempotent: a replay publishes the
    ///     same bytes again).
    /// - Returns: the release as recorded; `charged` tells whether this call spent budget.
    @discardableResult
    package func release(
        _ id: String, fingerprint: String, mechanism: String, cost: PrivacyCost,
        unit: String = "person", period: LedgerPeriod? = nil,
        draw: () throws -> Data, publish: (Data) throws -> Void
    ) throws -> Reservation {
        var reservation: Reservation
        if let stored = try lookup(release: id, fingerprint: fingerprint) {
            reservation = Reservation(release: stored, charged: false)
        } else {
            reservation = try reserve(
                release: id, fingerprint: fingerprint, mechanism: mechanism, cost: cost,
                unit: unit, period: period, noisyResult: try draw())
        }
        try publish(reservation.release.result)
        if !reservation.release.isPublished {
            try markPublished(reservation.release.seq)
            reservation.release.isPublished = true
        }
        return reservation
    }

    /// One release of a spec, for `releaseAll`.
    package struct Request {
        package var id: String
        package var fingerprint: String
        package var mechanism: String
        package var cost: PrivacyCost
        /// The privacy unit the cost protects: `day`, `workout` or `person`.
        package var unit: String
        /// For day and workout units, the local dates the release reads (ignored for `person`).
        package var period: LedgerPeriod?
        /// Computes the noisy result; called only when the release is new.
        package var draw: () throws -> Data

        package init(
            id: String, fingerprint: String, mechanism: String, cost: PrivacyCost, unit: String = "person",
            period: LedgerPeriod? = nil, draw: @escaping () throws -> Data
        ) {
            (self.id, self.fingerprint, self.mechanism, self.cost, self.draw) = (id, fingerprint.lowercased(), mechanism, cost, draw)
            (self.unit, self.period) = (unit, unit == "person" ? nil : period)
        }

        var charge: Charge { Charge(unit: unit, period: period, cost: cost) }
    }

    /// The protocol of `release` for every release of a spec at once, so that a spec is spent
    /// whole or not at all: the releases recorded on the same data answer from the ledger; the
    /// new ones are drawn, their costs checked together against the limit and all reserved under
    /// one hold of the lock before anything is published. A spec that does not fit is refused
    /// with nothing recorded and nothing published (`.overBudget`). Then `publish` gets every
    /// reservation at once, and each is marked published.
    @discardableResult
    package func releaseAll(_ requests: [Request], publish: ([Reservation]) throws -> Void) throws -> [Reservation] {
        for r in requests {
            try validate(release: r.id, fingerprint: r.fingerprint, mechanism: r.mechanism, cost: r.cost, unit: r.unit)
        }
        let recorded = try withLock { state in requests.map { state.bySubject[LedgerState.subject($0.id, $0.fingerprint)] != nil } }
        var drawn: [Int: Data] = [:]
        for (i, r) in requests.enumerated() where !recorded[i] { drawn[i] = try r.draw() }
        var reservations: [Reservation] = try withLock { state in
            var charges = state.charges, earlier = 0
            for r in requests where state.bySubject[LedgerState.subject(r.id, r.fingerprint)] == nil {
                try checkBudget(release: r.id, r.charge, charges: charges, alongside: earlier)
                charges.list.append(r.charge)
                earlier += 1
            }
            return try requests.enumerated().map { i, r in
                if let seq = state.bySubject[LedgerState.subject(r.id, r.fingerprint)] {
                    return Reservation(release: try stored(seq, state), charged: false)
                }
                // Looked up as recorded a moment ago, gone now: the ledger only grows, so no.
                guard let result = drawn[i] else {
                    throw LedgerError(.tampered, path: path, "release \(r.id) disappeared from the ledger while it was read")
                }
                return try appendReservation(
                    release: r.id, fingerprint: r.fingerprint, mechanism: r.mechanism,
                    charge: r.charge, noisyResult: result, &state)
            }
        }
        try publish(reservations)
        for k in reservations.indices where !reservations[k].release.isPublished {
            try markPublished(reservations[k].release.seq)
            reservations[k].release.isPublished = true
        }
        return reservations
    }

    // MARK: - Internals

    /// Runs `body` holding the in-process mutex and the file lock, on freshly verified state.
    private func withLock<T>(_ body: (inout LedgerState) throws -> T) throws -> T {
        mutex.lock(); defer { mutex.unlock() }
        if let failure { throw failure }
        try fileLock.acquire(timeout: lockTimeout)
        defer { fileLock.release() }
        do {
            if !files.exists(path), !files.exists(headPath) {
                // Stored results without their ledger: the ledger was deleted, not never made.
                if files.hasFiles(in: resultsFolder, suffix: ".result") {
                    throw broken(nil, "the ledger and its head are gone but its stored results remain in \(resultsFolder) (deleted?)")
                }
                try writeHead(seq: 0, hash: LedgerEntry.genesis)   // a new ledger: anchor it before line 1
            }
            var fresh = try load()
            if fresh.headStale { try writeHead(seq: fresh.lineCount, hash: fresh.lastHash) }
            fresh.headStale = false
            state = fresh
            if state.lineCount == 0 {
                // Line 1 fixes the subject and the limit before anything is spent.
                var opened = LedgerEntry(seq: 1, prev: LedgerEntry.genesis, timeUTC: BudgetLedger.now(), status: .opened)
                (opened.subject, opened.limit) = (subject, limit)
                // Two ledgers opened in the same second for the same subject, key and limit
                // would otherwise have the same first line, and so the same identity.
                var random = SystemRandomNumberGenerator()
                opened.nonce = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
                try append(opened, &state)
            }
            return try body(&state)
        } catch let error as LedgerError where error.kind == .tampered || error.kind == .mismatch {
            failure = error
            throw error
        }
    }

    /// Reads and verifies the whole ledger and its head.
    private func load() throws -> LedgerState {
        let bytes = try files.read(path) ?? []
        var state = LedgerState()
        var hashes: [String] = []
        var start = 0
        while start < bytes.count {
            let number = state.lineCount + 1
            guard let end = bytes[start...].firstIndex(of: 0x0A) else {
                throw broken(number, "the last line is incomplete (the file was cut, or a run died while appending)")
            }
            let line = bytes[start..<end]
            let (parsed, problem) = LedgerEntry.parse(line)
            guard let entry = parsed else { throw broken(number, "not a ledger entry (\(problem))") }
            guard entry.seq == number else {
                throw broken(number, "seq \(entry.seq) where \(number) belongs (a line deleted, added or moved)")
            }
            guard entry.prev == state.lastHash else {
                if number == 1 { throw broken(1, "the first line does not start the chain") }
                throw broken(number - 1, "this line's bytes no longer match the hash line \(number) recorded for it")
            }
            try record(entry, in: &state, line: number)
            if number == 1 { state.identity = identity(ofFirstLine: line) }
            state.lastHash = key.mac(line)
            state.lineCount = number
            hashes.append(state.lastHash)
            start = end + 1
        }
        try checkHead(&state, hashes: hashes)
        return state
    }

    /// Adds a verified line to the state, checking that it makes sense where it stands.
    private func record(_ entry: LedgerEntry, in state: inout LedgerState, line: Int) throws {
        let subject = LedgerState.subject(entry.releaseID, entry.fingerprint)
        guard (entry.status == .opened) == (line == 1) else {
            throw broken(
                line,
                line == 1
                    ? "the first line does not open the ledger (cut at the top, or a ledger of an earlier HealthTrail, "
                        + "whose spend cannot be carried over)"
                    : "a second opening line")
        }
        switch entry.status {
        case .opened:
            guard entry.subject == self.subject else {
                throw LedgerError(
                    .mismatch, path: path, line: 1,
                    "this ledger belongs to another data subject, or was written under another key: refused "
                        + "(each subject's budget lives in its own ledger)")
            }
            guard entry.limit == limit else {
                throw LedgerError(
                    .mismatch, path: path, line: 1,
                    "this ledger was opened with the budget limit \(entry.limit.map { "\($0)" } ?? "?"), "
                        + "but \(limit) is configured: a ledger's limit never changes; configure it as it was")
            }
        case .reserved:
            if let earlier = state.bySubject[subject] {
                throw broken(line, "release \(entry.releaseID) on the same data is already reserved at line \(earlier)")
            }
            guard let cost = entry.cost, let unit = entry.unit else { throw broken(line, "a reservation without its cost") }
            state.charges.list.append(Charge(unit: unit, period: unit == "person" ? nil : entry.period, cost: cost))
            state.reservations[entry.seq] = entry
            state.bySubject[subject] = entry.seq
        case .published:
            guard let seq = entry.reservation, let reserved = state.reservations[seq],
                reserved.releaseID == entry.releaseID, reserved.fingerprint == entry.fingerprint,
                reserved.outputSHA256 == entry.outputSHA256, !state.published.contains(seq)
            else {
                throw broken(line, "a published line that matches no open reservation")
            }
            state.published.insert(seq)
        }
    }

    private func checkHead(_ state: inout LedgerState, hashes: [String]) throws {
        guard let bytes = try files.read(headPath) else {
            if state.lineCount == 0 { state.headStale = true; return }
            throw broken(nil, "its head file \(headPath) is missing")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let seq = object["seq"] as? Int, seq >= 0, let hash = object["mac"] as? String
        else {
            throw broken(nil, "its head file \(headPath) is not valid")
        }
        if seq > state.lineCount {
            throw broken(
                state.lineCount == 0 ? nil : state.lineCount,
                "the ledger ends here but line \(seq) was written (lines deleted from the end?)")
        }
        if hash != headMAC(seq: seq, last: seq == 0 ? LedgerEntry.genesis : hashes[seq - 1]) {
            throw broken(seq == 0 ? nil : seq, "this line's bytes no longer match the MAC the head file recorded")
        }
        if state.lineCount > seq + 1 {
            throw broken(seq + 2, "lines from here on were not written by the ledger")
        }
        // One line past the head: a run died between appending and updating the head. Fine.
        state.headStale = state.lineCount == seq + 1
    }

    private func broken(_ line: Int?, _ detail: String) -> LedgerError {
        LedgerError(.tampered, path: path, line: line, "hash chain broken (edited by hand?): \(detail); further releases are refused")
    }

    private func append(_ entry: LedgerEntry, _ state: inout LedgerState) throws {
        let line = Array(entry.encoded().utf8)
        try files.append(line + [0x0A], to: path)
        try record(entry, in: &state, line: entry.seq)
        if entry.seq == 1 { state.identity = identity(ofFirstLine: line[...]) }
        state.lastHash = key.mac(line)
        state.lineCount = entry.seq
        try writeHead(seq: state.lineCount, hash: state.lastHash)
    }

    /// `identity()` of the ledger whose first line is `line` (without its `\n`).
    private func identity(ofFirstLine line: ArraySlice<UInt8>) -> String {
        String(key.mac(Array("healthtrail ledger identity\n".utf8) + line).prefix(16))
    }

    private func writeHead(seq: Int, hash: String) throws {
        try files.writeAtomically(Array("{\"seq\":\(seq),\"mac\":\"\(headMAC(seq: seq, last: hash))\"}\n".utf8), to: headPath)
    }

    /// The head's MAC: of its own text, not the last line's chain MAC, which the next line's
    /// `prev` already shows (a head rebuilt from a line's `prev` would let the tail be cut).
    private func headMAC(seq: Int, last: String) -> String {
        key.mac(Array("healthtrail ledger head\n\(seq)\n\(last)".utf8))
    }

    /// The stored release at `seq`, its result read back and checked against the ledger's hash.
    private func stored(_ seq: Int, _ state: LedgerState) throws -> StoredRelease {
        let entry = state.reservations[seq]!
        let file = resultsFolder + "/" + (entry.output ?? "")
        guard let bytes = try files.read(file), LedgerEntry.sha256Hex(bytes) == entry.outputSHA256 else {
            throw broken(seq, "the stored result \(file) is missing or changed")
        }
        return StoredRelease(
            seq: seq, releaseID: entry.releaseID, fingerprint: entry.fingerprint,
            mechanism: entry.mechanism ?? "", cost: entry.cost!, timeUTC: entry.timeUTC,
            result: Data(bytes), resultSHA256: entry.outputSHA256,
            isPublished: state.published.contains(seq))
    }

    private func validate(release: String, fingerprint: String, mechanism: String, cost: PrivacyCost, unit: String) throws {
        guard BudgetLedger.isValidMechanism(unit) else {
            throw LedgerError(.invalid, path: path, "release \(release): privacy unit \"\(unit)\" must be 1–64 of a-z 0-9 _")
        }
        guard BudgetLedger.isValidReleaseID(release) else {
            throw LedgerError(.invalid, path: path, "release id \"\(release)\" must be 1–100 of A-Z a-z 0-9 _ . - and not start with . or -")
        }
        guard LedgerEntry.isHex64(fingerprint) else {
            throw LedgerError(.invalid, path: path, "release \(release): the fingerprint must be a hex SHA-256 (64 digits)")
        }
        guard BudgetLedger.isValidMechanism(mechanism) else {
            throw LedgerError(.invalid, path: path, "release \(release): mechanism \"\(mechanism)\" must be 1–64 of a-z 0-9 _")
        }
        switch (mechanism, cost) {
        case ("discrete_laplace", .zCDP), ("discrete_gaussian", .pureDP):
            throw LedgerError(.invalid, path: path, "release \(release): \(mechanism) cannot cost \(cost) (Laplace is pure ε, Gaussian is ρ-zCDP)")
        case (_, .pureDP(let v)), (_, .zCDP(let v)):
            guard LedgerArithmetic.isPositive(v) else { throw LedgerError(.invalid, path: path, "release \(release): cost \(cost) must be positive") }
        }
    }

    /// Throws `.overBudget` unless every configured limit holds once the charge is added to
    /// `charges`: for the charge's unit and every unit inside it (`Charges.units(inside:)`), on
    /// every day of its period.
    /// `alongside`: how many other new releases of the same spec `charges` already counts.
    private func checkBudget(release: String, _ charge: Charge, charges: Charges, alongside: Int = 0) throws {
        for unit in Charges.units(inside: charge.unit) {
            for spent in charges.spentPoints(unit: unit, period: charge.period) {
                try checkBudget(release: release, charge, unit: unit, spent: spent, alongside: alongside)
            }
        }
    }

    private func checkBudget(release: String, _ charge: Charge, unit: String, spent: Spent, alongside: Int) throws {
        let cost = charge.cost
        guard let after = spent.adding(cost) else {
            throw LedgerError(.invalid, path: path, "release \(release): the budget sum overflows exact arithmetic")
        }
        func refuse(_ why: String) -> LedgerError {
            let together =
                alongside == 0
                ? ""
                : " (counting the spec's \(alongside) other new release\(alongside == 1 ? "" : "s") before it: a spec is spent whole or not at all)"
            let whom = unit == "person" ? "the person" : "a \(unit)" + (charge.period.map { " in \($0)" } ?? "")
            return LedgerError(.overBudget, path: path, "release \(release) refused, nothing recorded: \(why), for \(whom)\(together)")
        }
        if let total = limit.epsilon {
            guard let epsilon = cost.epsilon else {
                throw refuse("it costs \(cost) (zCDP, no pure ε) but the limit is pure ε = \(total); configure a ρ limit to mix in Gaussian releases")
            }
            if LedgerArithmetic.greater(after.epsilon, total) {
                throw refuse("it costs ε = \(epsilon), ε = \(spent.epsilon) of the limit ε = \(total) is spent")
            }
        }
        if let total = limit.rho, LedgerArithmetic.greater(after.rho, total) {
            let rho = cost.rho.map { "\($0)" } ?? "?"
            let how = cost.epsilon.map { " (ε = \($0) counts as ε²/2)" } ?? ""
            throw refuse("it costs ρ = \(rho)\(how), ρ = \(spent.rho) of the limit ρ = \(total) is spent")
        }
        if let target = limit.renyi {
            let delta = target.delta.doubleValue
            let epsilon = RenyiAccountant.epsilon(curve: after.rdp, rho: after.rho.doubleValue, delta: delta)
            if RenyiAccountant.exceeds(epsilon, limit: target.epsilon.doubleValue) {
                let before = RenyiAccountant.epsilon(curve: spent.rdp, rho: spent.rho.doubleValue, delta: delta)
                throw refuse(
                    "it costs \(cost), which would bring the spend to (ε, δ) = (\(Self.roundedUp(epsilon)), \(delta)) "
                        + "from (\(Self.roundedUp(before)), \(delta)) by Rényi accounting, over the limit \(target)")
            }
        }
    }

    /// ε rounded up to the third decimal, for messages: never below the accountant's figure.
    private static func roundedUp(_ epsilon: Double) -> String {
        epsilon.isFinite ? String((epsilon * 1000).rounded(.up) / 1000) : "∞"
    }

    package static func isValidReleaseID(_ s: String) -> Bool {
        let u = s.utf8
        guard (1...100).contains(u.count), u.first != UInt8(ascii: "."), u.first != UInt8(ascii: "-") else { return false }
        return u.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    package static func isValidMechanism(_ s: String) -> Bool {
        let u = s.utf8
        return (1...64).contains(u.count)
            && u.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") }
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    /// Now in UTC, `2024-01-02T15:31:22Z`.
    package static func now() -> String {
        var t = time(nil)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1,
            parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}

/// What a verified read of the ledger knows.
package struct LedgerState {
    package var lineCount = 0
    package var lastHash = LedgerEntry.genesis
    /// `BudgetLedger.identity()`, from the first line.
    package var identity = ""
    /// Reserved entries by seq.
    package var reservations: [Int: LedgerEntry] = [:]
    /// Seqs of reservations that have a published line.
    package var published: Set<Int> = []
    /// `subject(release, fingerprint)` → seq of its reservation.
    package var bySubject: [String: Int] = [:]
    /// What every reservation charged.
    package var charges = Charges()
    /// The head file lags the last line (new ledger, or a run died between append and head).
    package var headStale = false

    package static func subject(_ release: String, _ fingerprint: String) -> String { release + "\u{0}" + fingerprint }
}

extension Spent {
    /// Each figure at its largest over `all` (they may peak on different days or units).
    package static func largest(_ all: [Spent]) -> Spent {
        var result = Spent()
        for s in all {
            if LedgerArithmetic.greater(s.epsilon, result.epsilon) { result.epsilon = s.epsilon }
            if LedgerArithmetic.greater(s.rho, result.rho) { result.rho = s.rho }
            result.pureReleases = max(result.pureReleases, s.pureReleases)
            result.zcdpReleases = max(result.zcdpReleases, s.zcdpReleases)
            result.rdp = result.rdp.atLeast(s.rdp)
        }
        return result
    }

    /// A spend past any limit, for a sum that overflowed exact arithmetic (refused, never wrapped).
    package var saturated: Spent {
        var s = self
        (s.epsilon, s.rho, s.rdp) = (Rational(Int64.max), Rational(Int64.max), .infinite)
        return s
    }

    /// The totals after one more release, or nil on overflow.
    package func adding(_ cost: PrivacyCost) -> Spent? {
        var next = self
        switch cost {
        case .pureDP(let epsilon):
            guard let e = LedgerArithmetic.sum(self.epsilon, epsilon) else { return nil }
            next.epsilon = e
            next.pureReleases += 1
        case .zCDP:
            next.zcdpReleases += 1
        }
        guard let rho = cost.rho, let total = LedgerArithmetic.sum(self.rho, rho) else { return nil }
        next.rho = total
        next.rdp = rdp.adding(RDPCurve(cost))
        return next
    }
}

/// What one reservation charges: its cost, to its privacy unit, on the days of its period
/// (nil: everywhere, as for the person).
package struct Charge: Hashable, Sendable {
    package var unit: String
    package var period: LedgerPeriod?
    package var cost: PrivacyCost
}

/// Every charge of a ledger, and the spend they add up to where they overlap.
package struct Charges: Sendable {
    package var list: [Charge] = []

    /// The units whose spend a charge to `unit` adds to: the unit itself and those inside it. A
    /// release that protects the person protects each of its days and workouts as well; one that
    /// protects a day protects each workout of that day (a workout counts on the day it started).
    /// The other way round there is no bound: a day holds any number of workouts, so releases of
    /// workouts are not charged to days.
    package static func units(inside unit: String) -> [String] {
        switch unit {
        case "person": return ["person", "day", "workout"]
        case "day": return ["day", "workout"]
        default: return [unit]
        }
    }

    /// The spend of `unit` (its own charges and those of units containing it) at each day of
    /// `period` where it can be largest: the period's first day and every first day of a charge
    /// inside it (a sum of periods' indicator functions peaks where a period starts). One value
    /// when nothing is charged there.
    package func spentPoints(unit: String, period: LedgerPeriod?) -> [Spent] {
        let same = list.filter { Self.units(inside: $0.unit).contains(unit) }
        var days: [String?] = period.map { [$0.first] } ?? []
        for charge in same {
            if let first = charge.period?.first, period.map({ $0.contains(first) }) ?? true { days.append(first) }
        }
        if days.isEmpty { days = [nil] }   // only undated charges (the person's), or none
        return days.map { day in
            var spent = Spent()
            for charge in same where day == nil || charge.period == nil || charge.period!.contains(day!) {
                spent = spent.adding(charge.cost) ?? spent.saturated
            }
            return spent
        }
    }

    /// The spend of the most-charged unit at its most-charged day, each figure at its largest.
    package var mostSpent: Spent {
        Spent.largest(Set(list.flatMap { Self.units(inside: $0.unit) }).flatMap { spentPoints(unit: $0, period: nil) })
    }
}
