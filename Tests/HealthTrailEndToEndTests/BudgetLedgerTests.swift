import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailPrivacy

/// The privacy budget ledger: replay, charging, refusal, tampering, crash recovery, locking, modes.
extension BudgetLedger {
    /// A ledger of the subject `test` under `BudgetLedgerTests.key`.
    convenience init(path: String, limit: BudgetLimit, lockTimeout: Double = 60) throws {
        try self.init(path: path, limit: limit, key: BudgetLedgerTests.key, subject: "test", lockTimeout: lockTimeout)
    }
}

@Suite struct BudgetLedgerTests {
    // MARK: Helpers

    static let tenth = Rational(1, 10)

    static func fingerprint(_ text: String) -> String { LedgerEntry.sha256Hex(Data(text.utf8)) }

    /// The key every ledger of these tests is bound to.
    static let key = LedgerKey(material: Array(repeating: 7, count: 32))

    /// A fresh ledger path inside a folder the ledger creates itself.
    static func ledgerPath(_ name: String = #function) -> String {
        Support.temporaryDirectory(name) + "/out/" + BudgetLedger.defaultFileName
    }

    static func ledgerError(_ body: () throws -> Void) -> LedgerError? {
        do { try body(); return nil } catch let error as LedgerError { return error } catch { return nil }
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    static func write(_ lines: [String], to path: String) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Every byte the ledger owns: the file, its head, its stored results.
    static func snapshot(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for file in [path, path + ".head"] { files[file] = FileManager.default.contents(atPath: file) }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path + ".d")) ?? [] {
            files[name] = FileManager.default.contents(atPath: path + ".d/" + name)
        }
        return files
    }

    /// Three releases of ε = 1/10, each reserved and published: six lines.
    static func threeReleases(_ path: String) throws -> BudgetLedger {
        let ledger = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        for i in 1...3 {
            let r = try ledger.reserve(
                release: "release_\(i)", fingerprint: fingerprint("data"),
                mechanism: "discrete_laplace", cost: .pureDP(epsilon: tenth),
                noisyResult: Data("week,value\n1,\(40 + i)\n".utf8))
            try ledger.markPublished(r.release.seq)
        }
        return ledger
    }

    static func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o777 : 0
    }

    // MARK: Replay, new data, budget

    @Test func replayCostsNothingAndNeverDrawsAgain() throws {
        let path = Self.ledgerPath()
        let fp = Self.fingerprint("weeks 1-10")
        let first = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        var draws = 0
        var published: [Data] = []
        let r1 = try first.release(
            "weekly_resting_hr", fingerprint: fp, mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Rational(1, 2)),
            draw: {
                draws += 1; return Data("noisy-1".utf8)
            },
            publish: { published.append($0) })
        #expect(r1.charged && draws == 1 && r1.release.isPublished)
        #expect(try Self.lines(path).count == 3)   // opened, reserved, published
        let before = Self.snapshot(path)

        // The next cron run, a new process: same release, same data.
        let second = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        let r2 = try second.release(
            "weekly_resting_hr", fingerprint: fp, mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Rational(1, 2)),
            draw: {
                draws += 1; return Data("noisy-2".utf8)
            },
            publish: { published.append($0) })
        #expect(!r2.charged)
        #expect(draws == 1)   // no fresh noise
        #expect(published == [Data("noisy-1".utf8), Data("noisy-1".utf8)])
        #expect(second.spent.epsilon == Rational(1, 2) && second.spent.releases == 1)
        #expect(Self.snapshot(path) == before)   // nothing appended

        // reserve() on recorded data also answers from the ledger and drops the new draw.
        let r3 = try second.reserve(
            release: "weekly_resting_hr", fingerprint: fp.uppercased(),
            mechanism: "discrete_laplace", cost: .pureDP(epsilon: Rational(1, 2)),
            noisyResult: Data("noisy-3".utf8))
        #expect(!r3.charged && r3.release.result == Data("noisy-1".utf8) && r3.release.seq == 2)
        let looked = try #require(try second.lookup(release: "weekly_resting_hr", fingerprint: fp))
        #expect(looked.result == Data("noisy-1".utf8) && looked.isPublished)
        #expect(looked.cost == .pureDP(epsilon: Rational(1, 2)) && looked.mechanism == "discrete_laplace")
        #expect(Self.snapshot(path) == before)
    }

    @Test func newDataIsCharged() throws {
        let path = Self.ledgerPath()
        let ledger = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        let a = try ledger.reserve(
            release: "weekly_steps", fingerprint: Self.fingerprint("week 1"),
            mechanism: "discrete_laplace", cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("a".utf8))
        let b = try ledger.reserve(
            release: "weekly_steps", fingerprint: Self.fingerprint("week 1 and 2"),
            mechanism: "discrete_laplace", cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("b".utf8))
        let c = try ledger.reserve(
            release: "weekly_sleep", fingerprint: Self.fingerprint("week 1"),
            mechanism: "discrete_laplace", cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("c".utf8))
        #expect(a.charged && b.charged && c.charged)
        #expect([a.release.seq, b.release.seq, c.release.seq] == [Int]([2, 3, 4]))
        #expect(ledger.spent.epsilon == Rational(3, 10) && ledger.spent.pureReleases == 3)
        #expect(ledger.spent.rho == Rational(3, 200))   // 3 × (1/10)²/2
        let reopened = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        #expect(reopened.spent == ledger.spent)
        #expect(try reopened.lookup(release: "weekly_steps", fingerprint: Self.fingerprint("week 1"))?.result == Data("a".utf8))
        #expect(try reopened.lookup(release: "weekly_steps", fingerprint: Self.fingerprint("week 3")) == nil)
    }

    @Test func overspendingIsRefusedAndWritesNothing() throws {
        let path = Self.ledgerPath()
        let ledger = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        // Ten releases of ε = 0.1 add up to exactly 1 (in floating point 0.1 × 10 > 1 is a coin toss).
        for week in 1...10 {
            _ = try ledger.reserve(
                release: "weekly_steps", fingerprint: Self.fingerprint("week \(week)"),
                mechanism: "discrete_laplace", cost: .pureDP(epsilon: Rational("0.1")!),
                noisyResult: Data("w\(week)".utf8))
        }
        #expect(ledger.spent.epsilon == Rational(1))
        let before = Self.snapshot(path)
        let error = try #require(
            Self.ledgerError {
                _ = try ledger.reserve(
                    release: "weekly_steps", fingerprint: Self.fingerprint("week 11"),
                    mechanism: "discrete_laplace", cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("w11".utf8))
            })
        #expect(error.kind == .overBudget)
        #expect(error.description.contains("release weekly_steps refused, nothing recorded"))
        #expect(error.description.contains("costs ε = 1/10") && error.description.contains("ε = 1 of the limit ε = 1 is spent"))
        #expect(Self.snapshot(path) == before)   // byte-identical, no stray result
        #expect(ledger.spent.epsilon == Rational(1))
        // Replays still answer once the budget is gone: they cost nothing.
        #expect(
            try ledger.reserve(
                release: "weekly_steps", fingerprint: Self.fingerprint("week 3"),
                mechanism: "discrete_laplace", cost: .pureDP(epsilon: Self.tenth),
                noisyResult: Data("x".utf8)
            ).release.result == Data("w3".utf8))
        #expect(Self.snapshot(path) == before)
    }

    @Test func zcdpAccountingConvertsPureEpsilon() throws {
        let path = Self.ledgerPath()
        let ledger = try BudgetLedger(path: path, limit: BudgetLimit(rho: Rational(1, 2)))
        _ = try ledger.reserve(
            release: "laplace_one", fingerprint: Self.fingerprint("d"), mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Rational(1, 2)), noisyResult: Data("1".utf8))   // ρ 1/8
        _ = try ledger.reserve(
            release: "gaussian_one", fingerprint: Self.fingerprint("d"), mechanism: "discrete_gaussian",
            cost: .zCDP(rho: Rational(1, 4)), noisyResult: Data("2".utf8))
        #expect(ledger.spent.rho == Rational(3, 8) && ledger.spent.epsilon == Rational(1, 2))
        #expect(ledger.spent.pureReleases == 1 && ledger.spent.zcdpReleases == 1)
        #expect(
            Self.ledgerError {
                _ = try ledger.reserve(
                    release: "laplace_two", fingerprint: Self.fingerprint("d"), mechanism: "discrete_laplace",
                    cost: .pureDP(epsilon: Rational(1, 2)), noisyResult: Data("3".utf8))   // 3/8 + 1/8 = 1/2: fits
            } == nil)
        let over = try #require(
            Self.ledgerError {
                _ = try ledger.reserve(
                    release: "gaussian_two", fingerprint: Self.fingerprint("d"), mechanism: "discrete_gaussian",
                    cost: .zCDP(rho: Rational(1, 1000)), noisyResult: Data("4".utf8))
            })
        #expect(over.kind == .overBudget && over.description.contains("ρ = 1/2 of the limit ρ = 1/2 is spent"))

        // The limit is fixed in line 1: reopening with another is refused, nothing written.
        let before = Self.snapshot(path)
        let changed = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(10))) })
        #expect(changed.kind == .mismatch && changed.line == 1)
        #expect(changed.description.contains("opened with the budget limit ρ = 1/2, but ε = 10 is configured"))
        let raised = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(rho: Rational(1))) })
        #expect(raised.kind == .mismatch && Self.snapshot(path) == before)
        // A pure ε limit cannot hold a zCDP release.
        let fresh = try BudgetLedger(path: Self.ledgerPath("fresh"), limit: BudgetLimit(epsilon: Rational(10)))
        let gaussian = try #require(
            Self.ledgerError {
                _ = try fresh.reserve(
                    release: "g", fingerprint: Self.fingerprint("d"), mechanism: "discrete_gaussian",
                    cost: .zCDP(rho: Self.tenth), noisyResult: Data())
            })
        #expect(gaussian.kind == .overBudget && gaussian.description.contains("configure a ρ limit"))
    }

    @Test func badCallsAreRefused() throws {
        #expect(Self.ledgerError { _ = try BudgetLedger(path: Self.ledgerPath(), limit: BudgetLimit()) }?.kind == .invalid)
        #expect(Self.ledgerError { _ = try BudgetLedger(path: Self.ledgerPath(), limit: BudgetLimit(rho: Rational(0))) }?.kind == .invalid)
        let ledger = try BudgetLedger(path: Self.ledgerPath(), limit: BudgetLimit(epsilon: Rational(1)))
        let fp = Self.fingerprint("d")
        for (release, fingerprint, mechanism, cost) in [
            ("../escape", fp, "discrete_laplace", PrivacyCost.pureDP(epsilon: Self.tenth)),
            ("ok", "abc", "discrete_laplace", .pureDP(epsilon: Self.tenth)),
            ("ok", fp, "Discrete Laplace", .pureDP(epsilon: Self.tenth)),
            ("ok", fp, "discrete_laplace", .zCDP(rho: Self.tenth)),
            ("ok", fp, "discrete_laplace", .pureDP(epsilon: Rational(-1, 10))),
        ] {
            let error = Self.ledgerError {
                _ = try ledger.reserve(release: release, fingerprint: fingerprint, mechanism: mechanism, cost: cost, noisyResult: Data())
            }
            #expect(error?.kind == .invalid, "\(release) \(mechanism) \(cost)")
        }
        #expect(Self.ledgerError { try ledger.markPublished(7) }?.kind == .invalid)
        #expect(ledger.spent.releases == 0)
    }

    // MARK: Accounting per privacy unit

    /// Reserves a release of `unit` over `first`…`last` costing ε; nil when it fits, else the error.
    static func charge(_ ledger: BudgetLedger, _ id: String, unit: String, _ first: String, _ last: String, epsilon: Rational) -> LedgerError? {
        ledgerError {
            _ = try ledger.reserve(
                release: id, fingerprint: fingerprint(id + first), mechanism: "discrete_laplace", cost: .pureDP(epsilon: epsilon),
                unit: unit, period: LedgerPeriod(first: first, last: last), noisyResult: Data(id.utf8))
        }
    }

    @Test func releasesChargeTheirDaysAndTheUnitsInsideTheirUnit() throws {
        let ledger = try BudgetLedger(path: Self.ledgerPath(), limit: BudgetLimit(epsilon: Rational(1)))
        let half = Rational(1, 2)
        // Weekly day-level releases read disjoint days: each day has spent 1/2, not 52 × 1/2.
        for week in 0..<10 {
            let monday = 2 + 7 * week, sunday = monday + 6
            let first = String(format: "2023-%02d-%02d", 1 + monday / 31, monday % 31 + 1)
            let last = String(format: "2023-%02d-%02d", 1 + sunday / 31, sunday % 31 + 1)
            #expect(Self.charge(ledger, "weekly_\(week)", unit: "day", first, last, epsilon: half) == nil)
        }
        #expect(ledger.spent(unit: "day").epsilon == half)
        // Overlapping days add up: a second release over 2023-01-05…2023-01-20 fits (1/2 + 1/2)…
        #expect(Self.charge(ledger, "overlap", unit: "day", "2023-01-05", "2023-01-20", epsilon: half) == nil)
        #expect(ledger.spent(unit: "day").epsilon == Rational(1))
        #expect(ledger.spent(unit: "day", period: LedgerPeriod(first: "2023-02-01", last: "2023-02-28")).epsilon == half)
        // …and a third on any of those days does not, whichever day of its period is the full one.
        let over = try #require(Self.charge(ledger, "third", unit: "day", "2023-01-19", "2023-01-25", epsilon: Self.tenth))
        #expect(over.kind == .overBudget && over.description.contains("for a day in 2023-01-19…2023-01-25"))
        #expect(Self.charge(ledger, "later", unit: "day", "2023-01-21", "2023-01-25", epsilon: half) == nil)
        // A workout is charged its day's releases too: 2023-01-19 is full, so is its workouts'
        // budget; in March (days charged 1/2) a workout release of 1/2 fits, of 3/5 does not.
        #expect(ledger.spent(unit: "workout").epsilon == Rational(1))
        let full = Self.charge(ledger, "w_jan", unit: "workout", "2023-01-19", "2023-01-19", epsilon: Self.tenth)
        #expect(full?.description.contains("for a workout in 2023-01-19…2023-01-19") == true, "\(String(describing: full))")
        #expect(Self.charge(ledger, "w_mar", unit: "workout", "2023-03-01", "2023-03-05", epsilon: half) == nil)
        #expect(Self.charge(ledger, "w_mar2", unit: "workout", "2023-03-04", "2023-03-08", epsilon: Rational(3, 5)) != nil)
        // Workout releases are not charged to days (a day holds any number of workouts).
        #expect(ledger.spent(unit: "day", period: LedgerPeriod(first: "2023-03-01", last: "2023-03-05")).epsilon == half)
        // The person's release is charged to every day and workout: January's full days refuse it.
        let person = try #require(Self.charge(ledger, "p1", unit: "person", "2023-06-01", "2023-06-07", epsilon: half))
        #expect(person.kind == .overBudget && person.description.contains("for a day"), "\(person)")
        let fresh = try BudgetLedger(path: Self.ledgerPath("fresh"), limit: BudgetLimit(epsilon: Rational(1)))
        #expect(Self.charge(fresh, "d", unit: "day", "2023-01-02", "2023-01-08", epsilon: half) == nil)
        #expect(Self.charge(fresh, "p", unit: "person", "2024-01-01", "2024-01-07", epsilon: half) == nil)
        #expect(fresh.spent(unit: "person").epsilon == half && fresh.spent(unit: "day").epsilon == Rational(1))
        // Any day of 2025 has the person's 1/2 spent: 3/5 more does not fit.
        let later = Self.charge(fresh, "d2", unit: "day", "2025-01-01", "2025-01-01", epsilon: Rational(3, 5))
        #expect(later?.description.contains("for a day in 2025-01-01…2025-01-01") == true, "\(String(describing: later))")
        // What reopening the file computes is the same.
        let reopened = try BudgetLedger(path: ledger.path, limit: BudgetLimit(epsilon: Rational(1)))
        #expect(reopened.spent(unit: "day").epsilon == Rational(1) && reopened.spent(unit: "person").epsilon == Rational(0))
        #expect(reopened.spent(unit: "workout").epsilon == Rational(1) && reopened.spent.epsilon == Rational(1))
    }

    // MARK: Binding to the subject and key

    @Test func anotherSubjectsOrKeysLedgerIsRefused() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        let before = Self.snapshot(path)
        let limit = BudgetLimit(epsilon: Rational(1))
        let otherSubject = try #require(
            Self.ledgerError { _ = try BudgetLedger(path: path, limit: limit, key: Self.key, subject: "someone else") })
        #expect(otherSubject.kind == .mismatch && otherSubject.line == 1 && otherSubject.description.contains("another data subject"))
        let otherKey = LedgerKey(material: Array(repeating: 8, count: 32))
        let swapped = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: limit, key: otherKey, subject: "test") })
        #expect(swapped.kind == .mismatch && swapped.line == 1)
        #expect(Self.snapshot(path) == before)
    }

    @Test func cuttingTheTailAndRecomputingTheHeadWithoutTheKeyIsRefused() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        var lines = try Self.lines(path)
        lines.removeLast(2)   // the last release, refunded if this went unseen
        try Self.write(lines, to: path)
        // The head rewritten to match, the way it was made before keys: SHA-256 of the last line.
        let sha = LedgerEntry.sha256Hex(Data(lines.last!.utf8))
        try Data("{\"seq\":5,\"mac\":\"\(sha)\"}\n".utf8).write(to: URL(fileURLWithPath: path + ".head"))
        let error = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) })
        #expect(error.kind == .tampered && error.line == 5)
    }

    /// A line's `prev` is the MAC of the line before: a head rebuilt from it must not pass.
    @Test func cuttingTheTailAndRebuildingTheHeadFromAPrevIsRefused() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        let lines = try Self.lines(path)
        let next = try #require(try JSONSerialization.jsonObject(with: Data(lines[5].utf8)) as? [String: Any])
        try Self.write(Array(lines.prefix(5)), to: path)
        try Data("{\"seq\":5,\"mac\":\"\(next["prev"] as? String ?? "")\"}\n".utf8).write(to: URL(fileURLWithPath: path + ".head"))
        let cut = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) })
        #expect(cut.kind == .tampered && cut.line == 5)
        // Everything cut but the opening line, with the head of a new ledger.
        try Self.write(Array(lines.prefix(1)), to: path)
        try Data("{\"seq\":0,\"mac\":\"\(LedgerEntry.genesis)\"}\n".utf8).write(to: URL(fileURLWithPath: path + ".head"))
        #expect(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) }?.kind == .tampered)
    }

    @Test func deletingTheLedgerAndItsHeadIsRefusedWhileItsResultsRemain() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        unlink(path)
        unlink(path + ".head")
        let error = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) })
        #expect(error.kind == .tampered && error.description.contains("stored results remain"))
        #expect(!FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + ".head"))
    }

    @Test func deletingTheLedgerIsRefusedWhileItsHeadRemains() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        unlink(path)
        let error = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) })
        #expect(error.kind == .tampered && error.description.contains("lines deleted from the end"))
        #expect(!FileManager.default.fileExists(atPath: path))   // nothing started afresh
    }

    // MARK: Format

    @Test func fileFormatIsAKeyedHashChainOfJSONLines() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        let lines = try Self.lines(path)
        #expect(lines.count == 7)
        // HMAC-SHA256 of each line under the key, computed by Python's hmac, not by the ledger;
        // the last printed is the head's: of "healthtrail ledger head\n<seq>\n<last line's MAC>".
        let script = [
            "import hmac, hashlib, sys",
            "m = lambda b: hmac.new(bytes([7] * 32), b, hashlib.sha256).hexdigest()",
            "lines = sys.stdin.read().split(chr(10))[:-1]",
            "for l in lines: print(m(l.encode()))",
            "print(m(('healthtrail ledger head' + chr(10) + str(len(lines)) + chr(10) + m(lines[-1].encode())).encode()))",
        ].joined(separator: "\n")
        let input = path + ".lines"
        try Self.write(lines, to: input)
        let python = try Support.runProgram("/bin/sh", ["-c", "python3 -c \"$0\" < \"$1\"", script, input])
        let macs = python.stdout.split(separator: "\n").map(String.init)
        #expect(python.status == 0 && macs.count == 8, "\(python.stderr)")
        var prev = String(repeating: "0", count: 64)
        for (i, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["seq"] as? Int == i + 1)
            #expect(object["prev"] as? String == prev)
            #expect((object["time_utc"] as? String)?.hasSuffix("Z") == true)
            if i == 0 {
                // The opening line: the subject's tag under the key, and the limit, for good.
                #expect(object["status"] as? String == "opened" && object["format"] as? Int == 2)
                #expect(object["subject"] as? String == Self.key.subjectTag("test"))
                #expect(object["limit_epsilon"] as? String == "1" && object["limit_rho"] == nil)
            } else if i % 2 == 1 {
                #expect(object["status"] as? String == "reserved")
                #expect(object["epsilon"] as? String == "1/10" && object["rho"] == nil)
                #expect(object["mechanism"] as? String == "discrete_laplace" && object["unit"] as? String == "person")
                let output = try #require(object["output"] as? String)
                let stored = try #require(FileManager.default.contents(atPath: path + ".d/" + output))
                #expect(object["output_sha256"] as? String == LedgerEntry.sha256Hex(stored))
            } else {
                #expect(object["status"] as? String == "published" && object["reservation"] as? Int == i)
            }
            prev = macs[i]
        }
        let head = try String(contentsOfFile: path + ".head", encoding: .utf8)
        #expect(head == "{\"seq\":7,\"mac\":\"\(macs.last ?? "")\"}\n")
    }

    @Test func filesAndFoldersAreOwnerOnly() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(path + ".head") == 0o600)
        #expect(Self.mode(path + ".lock") == 0o600)
        #expect(Self.mode(path + ".d") == 0o700)
        #expect(Self.mode(path + ".d/2-release_1.result") == 0o600)
        #expect(Self.mode((path as NSString).deletingLastPathComponent) == 0o700)   // the folder it created
    }

    // MARK: Tampering

    /// Applies `edit` to the lines of a fresh three-release ledger and returns the error on reopening.
    static func tampered(_ name: String, _ edit: (inout [String]) -> Void) throws -> LedgerError? {
        let path = ledgerPath(name)
        _ = try threeReleases(path)
        var lines = try lines(path)
        edit(&lines)
        try write(lines, to: path)
        return ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) }
    }

    @Test func editingANumberInAMiddleLineIsDetected() throws {
        let error = try #require(
            try Self.tampered("edit") { lines in
                lines[3] = lines[3].replacingOccurrences(of: "\"epsilon\":\"1/10\"", with: "\"epsilon\":\"1/100\"")
            })
        #expect(error.kind == .tampered && error.line == 4)
        #expect(error.description.hasPrefix("ledger /") && error.description.contains("line 4: hash chain broken (edited by hand?)"))
    }

    @Test func deletingALineIsDetected() throws {
        let middle = try #require(try Self.tampered("delete") { $0.remove(at: 3) })
        #expect(middle.kind == .tampered && middle.line == 4 && middle.description.contains("line 4: hash chain broken"))
        let first = try #require(try Self.tampered("deleteFirst") { $0.removeFirst() })
        #expect(first.kind == .tampered && first.line == 1)
        // The last line: the chain alone cannot see it; the head can (it would refund a release).
        let last = try #require(try Self.tampered("deleteLast") { $0.removeLast() })
        #expect(last.kind == .tampered && last.line == 6 && last.description.contains("lines deleted from the end"))
        let lastTwo = try #require(try Self.tampered("deleteLastTwo") { $0.removeLast(2) })
        #expect(lastTwo.kind == .tampered && lastTwo.line == 5)
    }

    @Test func reorderingLinesIsDetected() throws {
        let error = try #require(try Self.tampered("reorder") { $0.swapAt(2, 3) })
        #expect(error.kind == .tampered && error.line == 3 && error.description.contains("hash chain broken (edited by hand?)"))
    }

    @Test func editingTheLastLineIsDetected() throws {
        let error = try #require(
            try Self.tampered("editLast") { lines in
                lines[6] = lines[6].replacingOccurrences(of: "\"reservation\":6", with: "\"reservation\":6 ")
            })
        #expect(error.kind == .tampered && error.line == 7)
    }

    @Test func truncatedLastLineIsDetected() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        try bytes.prefix(bytes.count - 30).write(to: URL(fileURLWithPath: path))
        let error = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) })
        #expect(error.kind == .tampered && error.line == 7 && error.description.contains("incomplete"))
    }

    @Test func changedStoredResultIsDetected() throws {
        let path = Self.ledgerPath()
        let ledger = try Self.threeReleases(path)
        try Data("week,value\n1,99\n".utf8).write(to: URL(fileURLWithPath: path + ".d/4-release_2.result"))
        let error = try #require(Self.ledgerError { _ = try ledger.lookup(release: "release_2", fingerprint: Self.fingerprint("data")) })
        #expect(error.kind == .tampered && error.line == 4)
    }

    @Test func tamperingRefusesEveryFurtherRelease() throws {
        let path = Self.ledgerPath()
        let ledger = try Self.threeReleases(path)
        let original = try #require(FileManager.default.contents(atPath: path))
        var lines = try Self.lines(path)
        lines[1] = lines[1].replacingOccurrences(of: "release_1", with: "release_9")
        try Self.write(lines, to: path)
        let reserve = {
            _ = try ledger.reserve(
                release: "new_release", fingerprint: Self.fingerprint("data"), mechanism: "discrete_laplace",
                cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("n".utf8))
        }
        #expect(Self.ledgerError(reserve)?.line == 2)
        #expect(FileManager.default.contents(atPath: path) == Data((lines.joined(separator: "\n") + "\n").utf8))   // nothing appended
        // Even put back, this object keeps refusing (a person must look); nothing was appended.
        try original.write(to: URL(fileURLWithPath: path))
        #expect(Self.ledgerError(reserve)?.kind == .tampered)
        #expect(Self.ledgerError { _ = try ledger.lookup(release: "release_2", fingerprint: Self.fingerprint("data")) }?.kind == .tampered)
        #expect(try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))).spent.releases == 3)
    }

    // MARK: Crashes

    @Test func crashBetweenRecordingAndPublishingIsCompletedWithoutNewSpend() throws {
        let path = Self.ledgerPath()
        let fp = Self.fingerprint("weeks 1-10")
        do {
            let run1 = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
            _ = try run1.reserve(
                release: "weekly_resting_hr", fingerprint: fp, mechanism: "discrete_laplace",
                cost: .pureDP(epsilon: Rational(1, 2)), noisyResult: Data("stored noise".utf8))
            // …killed here: never published, never marked.
        }
        let run2 = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        #expect(run2.spent.epsilon == Rational(1, 2))
        let pending = try run2.pending()
        #expect(pending.count == 1 && pending[0].result == Data("stored noise".utf8) && !pending[0].isPublished)

        var published: [Data] = []
        var draws = 0
        let outcome = try run2.release(
            "weekly_resting_hr", fingerprint: fp, mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Rational(1, 2)),
            draw: {
                draws += 1; return Data("fresh".utf8)
            },
            publish: { published.append($0) })
        #expect(!outcome.charged && draws == 0 && published == [Data("stored noise".utf8)])
        #expect(run2.spent.epsilon == Rational(1, 2) && run2.spent.releases == 1)
        #expect(try run2.pending().isEmpty)
        let lines = try Self.lines(path)
        #expect(lines.count == 3 && lines[2].contains("\"status\":\"published\"") && lines[2].contains("\"reservation\":2"))
        #expect(try run2.lookup(release: "weekly_resting_hr", fingerprint: fp)?.isPublished == true)
        // Marking twice appends nothing.
        try run2.markPublished(2)
        #expect(try Self.lines(path).count == 3)
    }

    @Test func crashBeforeTheLineIsAppendedSpendsNothing() throws {
        let path = Self.ledgerPath()
        let ledger = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        // A run stored its result, then died before appending line 2 (and left a temporary file).
        try Data("orphan".utf8).write(to: URL(fileURLWithPath: path + ".d/2-other_release.result"))
        try Data("tmp".utf8).write(to: URL(fileURLWithPath: path + ".d/.tmp-99999-2-other_release.result"))
        #expect(try ledger.lookup(release: "other_release", fingerprint: Self.fingerprint("d")) == nil)
        #expect(ledger.spent.releases == 0)
        let r = try ledger.reserve(
            release: "weekly_steps", fingerprint: Self.fingerprint("d"), mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("new".utf8))
        #expect(r.charged && r.release.seq == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + ".d") == ["2-weekly_steps.result"])
    }

    @Test func crashBetweenAppendAndHeadUpdateIsAccepted() throws {
        let path = Self.ledgerPath()
        let ledger = try Self.threeReleases(path)
        let head = try #require(FileManager.default.contents(atPath: path + ".head"))
        _ = try ledger.reserve(
            release: "release_4", fingerprint: Self.fingerprint("data"), mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("4".utf8))
        try head.write(to: URL(fileURLWithPath: path + ".head"))   // the head never got updated
        let reopened = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        #expect(reopened.spent.releases == 4)
        #expect(try String(contentsOfFile: path + ".head", encoding: .utf8).hasPrefix("{\"seq\":8,"))   // repaired
    }

    // MARK: Concurrency

    @Test func twoLedgerObjectsAppendingAtOnceAreSerialised() throws {
        let path = Self.ledgerPath()
        let limit = BudgetLimit(epsilon: Rational(100))
        let ledgers = [try BudgetLedger(path: path, limit: limit), try BudgetLedger(path: path, limit: limit)]
        let failures = LedgerTestCounter()
        DispatchQueue.concurrentPerform(iterations: 40) { i in
            do {
                // Half the calls race on the same release and data: only one may be charged.
                let release = i % 2 == 0 ? "shared" : "release_\(i)"
                let r = try ledgers[i % 2].reserve(
                    release: release, fingerprint: Self.fingerprint("d"),
                    mechanism: "discrete_laplace", cost: .pureDP(epsilon: Self.tenth),
                    noisyResult: Data("\(i)".utf8))
                try ledgers[(i + 1) % 2].markPublished(r.release.seq)
            } catch {
                failures.add()
            }
        }
        #expect(failures.value == 0)
        let reopened = try BudgetLedger(path: path, limit: limit)
        #expect(reopened.spent.releases == 21)   // 20 distinct + 1 shared
        #expect(reopened.spent.epsilon == Rational(21, 10))
        #expect(try Self.lines(path).count == 43)   // opened, then each reserved once and published once
    }

    @Test func anotherProcessHoldingTheLockBlocksAppends() throws {
        let path = Self.ledgerPath()
        let ledger = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)), lockTimeout: 0.3)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/flock") else { return }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [path + ".lock", "sleep", "3"]
        try holder.run()
        defer { if holder.isRunning { holder.terminate() }; holder.waitUntilExit() }
        // Wait until the other process holds it.
        let probe = open(path + ".lock", O_RDWR)
        defer { close(probe) }
        let deadline = Date().addingTimeInterval(5)
        while flock(probe, LOCK_EX | LOCK_NB) == 0 {
            flock(probe, LOCK_UN)
            guard Date() < deadline else { Issue.record("flock never took the lock"); return }
            usleep(10_000)
        }
        let before = Self.snapshot(path)
        let error = Self.ledgerError {
            _ = try ledger.reserve(
                release: "blocked", fingerprint: Self.fingerprint("d"), mechanism: "discrete_laplace",
                cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("b".utf8))
        }
        #expect(error?.kind == .locked)
        #expect(Self.snapshot(path) == before)
        holder.waitUntilExit()
        let later = try ledger.reserve(
            release: "blocked", fingerprint: Self.fingerprint("d"), mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("b".utf8))
        #expect(later.charged)
    }
}

/// A counter several threads can add to.
final class LedgerTestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
