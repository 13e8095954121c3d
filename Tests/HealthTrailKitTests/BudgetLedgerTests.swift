import Foundation
import Testing

@testable import HealthTrailKit
@testable import HealthTrailPrivacy

/// The privacy budget ledger: replay, charging, refusal, tampering, crash recovery, locking, modes.
@Suite struct BudgetLedgerTests {
    // MARK: Helpers

    static let tenth = Rational(1, 10)

    static func fingerprint(_ text: String) -> String { BudgetLedger.fingerprint(of: Data(text.utf8)) }

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
        #expect(try Self.lines(path).count == 2)   // reserved + published
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
        #expect(!r3.charged && r3.release.result == Data("noisy-1".utf8) && r3.release.seq == 1)
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
        #expect([a.release.seq, b.release.seq, c.release.seq] == [Int]([1, 2, 3]))
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

        // A pure ε limit cannot hold a zCDP release, and the ledger now holds one.
        let pure = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(10)))
        let mixed = try #require(
            Self.ledgerError {
                _ = try pure.reserve(
                    release: "laplace_three", fingerprint: Self.fingerprint("d"), mechanism: "discrete_laplace",
                    cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("5".utf8))
            })
        #expect(mixed.kind == .overBudget && mixed.description.contains("zCDP"))
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

    // MARK: Format

    @Test func fileFormatIsAHashChainOfJSONLines() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        let lines = try Self.lines(path)
        #expect(lines.count == 6)
        var prev = String(repeating: "0", count: 64)
        for (i, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["seq"] as? Int == i + 1)
            #expect(object["prev"] as? String == prev)
            #expect((object["time_utc"] as? String)?.hasSuffix("Z") == true)
            #expect(object["status"] as? String == (i % 2 == 0 ? "reserved" : "published"))
            if i % 2 == 0 {
                #expect(object["epsilon"] as? String == "1/10" && object["rho"] == nil)
                #expect(object["mechanism"] as? String == "discrete_laplace")
                let output = try #require(object["output"] as? String)
                let stored = try #require(FileManager.default.contents(atPath: path + ".d/" + output))
                #expect(object["output_sha256"] as? String == BudgetLedger.fingerprint(of: stored))
            } else {
                #expect(object["reservation"] as? Int == i)
            }
            prev = BudgetLedger.fingerprint(of: Data(line.utf8))
        }
        let head = try String(contentsOfFile: path + ".head", encoding: .utf8)
        #expect(head == "{\"seq\":6,\"sha256\":\"\(prev)\"}\n")
    }

    @Test func filesAndFoldersAreOwnerOnly() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(path + ".head") == 0o600)
        #expect(Self.mode(path + ".lock") == 0o600)
        #expect(Self.mode(path + ".d") == 0o700)
        #expect(Self.mode(path + ".d/1-release_1.result") == 0o600)
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
                lines[2] = lines[2].replacingOccurrences(of: "\"epsilon\":\"1/10\"", with: "\"epsilon\":\"1/100\"")
            })
        #expect(error.kind == .tampered && error.line == 3)
        #expect(error.description.hasPrefix("ledger /") && error.description.contains("line 3: hash chain broken (edited by hand?)"))
    }

    @Test func deletingALineIsDetected() throws {
        let middle = try #require(try Self.tampered("delete") { $0.remove(at: 2) })
        #expect(middle.kind == .tampered && middle.line == 3 && middle.description.contains("line 3: hash chain broken"))
        let first = try #require(try Self.tampered("deleteFirst") { $0.removeFirst() })
        #expect(first.kind == .tampered && first.line == 1)
        // The last line: the chain alone cannot see it; the head can (it would refund a release).
        let last = try #require(try Self.tampered("deleteLast") { $0.removeLast() })
        #expect(last.kind == .tampered && last.line == 5 && last.description.contains("lines deleted from the end"))
        let lastTwo = try #require(try Self.tampered("deleteLastTwo") { $0.removeLast(2) })
        #expect(lastTwo.kind == .tampered && lastTwo.line == 4)
    }

    @Test func reorderingLinesIsDetected() throws {
        let error = try #require(try Self.tampered("reorder") { $0.swapAt(2, 3) })
        #expect(error.kind == .tampered && error.line == 3 && error.description.contains("hash chain broken (edited by hand?)"))
    }

    @Test func editingTheLastLineIsDetected() throws {
        let error = try #require(
            try Self.tampered("editLast") { lines in
                lines[5] = lines[5].replacingOccurrences(of: "\"reservation\":5", with: "\"reservation\":5 ")
            })
        #expect(error.kind == .tampered && error.line == 6)
    }

    @Test func truncatedLastLineIsDetected() throws {
        let path = Self.ledgerPath()
        _ = try Self.threeReleases(path)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        try bytes.prefix(bytes.count - 30).write(to: URL(fileURLWithPath: path))
        let error = try #require(Self.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1))) })
        #expect(error.kind == .tampered && error.line == 6 && error.description.contains("incomplete"))
    }

    @Test func changedStoredResultIsDetected() throws {
        let path = Self.ledgerPath()
        let ledger = try Self.threeReleases(path)
        try Data("week,value\n1,99\n".utf8).write(to: URL(fileURLWithPath: path + ".d/3-release_2.result"))
        let error = try #require(Self.ledgerError { _ = try ledger.lookup(release: "release_2", fingerprint: Self.fingerprint("data")) })
        #expect(error.kind == .tampered && error.line == 3)
    }

    @Test func tamperingRefusesEveryFurtherRelease() throws {
        let path = Self.ledgerPath()
        let ledger = try Self.threeReleases(path)
        let original = try #require(FileManager.default.contents(atPath: path))
        var lines = try Self.lines(path)
        lines[0] = lines[0].replacingOccurrences(of: "release_1", with: "release_9")
        try Self.write(lines, to: path)
        let reserve = {
            _ = try ledger.reserve(
                release: "new_release", fingerprint: Self.fingerprint("data"), mechanism: "discrete_laplace",
                cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("n".utf8))
        }
        #expect(Self.ledgerError(reserve)?.line == 1)
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
        #expect(lines.count == 2 && lines[1].contains("\"status\":\"published\"") && lines[1].contains("\"reservation\":1"))
        #expect(try run2.lookup(release: "weekly_resting_hr", fingerprint: fp)?.isPublished == true)
        // Marking twice appends nothing.
        try run2.markPublished(1)
        #expect(try Self.lines(path).count == 2)
    }

    @Test func crashBeforeTheLineIsAppendedSpendsNothing() throws {
        let path = Self.ledgerPath()
        let ledger = try BudgetLedger(path: path, limit: BudgetLimit(epsilon: Rational(1)))
        // A run stored its result, then died before appending line 1 (and left a temporary file).
        try Data("orphan".utf8).write(to: URL(fileURLWithPath: path + ".d/1-other_release.result"))
        try Data("tmp".utf8).write(to: URL(fileURLWithPath: path + ".d/.tmp-99999-1-other_release.result"))
        #expect(try ledger.lookup(release: "other_release", fingerprint: Self.fingerprint("d")) == nil)
        #expect(ledger.spent.releases == 0)
        let r = try ledger.reserve(
            release: "weekly_steps", fingerprint: Self.fingerprint("d"), mechanism: "discrete_laplace",
            cost: .pureDP(epsilon: Self.tenth), noisyResult: Data("new".utf8))
        #expect(r.charged && r.release.seq == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + ".d") == ["1-weekly_steps.result"])
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
        #expect(try String(contentsOfFile: path + ".head", encoding: .utf8).hasPrefix("{\"seq\":7,"))   // repaired
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
        #expect(try Self.lines(path).count == 42)   // each reserved once and published once
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
