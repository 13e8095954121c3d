import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailPrivacy

/// The Rényi-DP accountant (`RDPCurve`, `RenyiAccountant`): known answers worked by hand,
/// agreement with Google's `dp_accounting` (PyPI; `make test` installs it) on the shipped
/// specs, and the ledger's (ε, δ) budget.
@Suite struct RenyiAccountantTests {
    static let delta = 1e-6

    /// Whether python3 can import dp_accounting here.
    static let dpAccountingAvailable: Bool = {
        (try? Support.runProgram("/usr/bin/env", ["python3", "-c", "import dp_accounting"]).status) == 0
    }()

    /// Randomized response's divergence straight from its definition,
    /// ln((e^(αε) + e^((1 − α)ε)) / (1 + e^ε)) / (α − 1) (p = e^ε / (1 + e^ε) substituted into
    /// p^α (1 − p)^(1 − α) + (1 − p)^α p^(1 − α)): safe for the moderate ε and α used here.
    static func direct(epsilon e: Double, order a: Double) -> Double {
        log((exp(a * e) + exp((1 - a) * e)) / (1 + exp(e))) / (a - 1)
    }

    /// At α = 2 the definition simplifies by hand to ln(e^ε − 1 + e^(−ε)) (e³ + 1 = (e + 1)(e² −
    /// e + 1)); other orders match the definition; and every value lies below both ε (what any
    /// ε-DP pair diverges by) and αε²/2 (the zCDP charge it replaces).
    @Test func randomizedResponseHasTheDivergenceWorkedByHand() {
        for e in [0.1, 0.5, 1.0, 2.0] {
            let byHand = log(exp(e) - 1 + exp(-e))
            #expect(abs(RDPCurve.randomizedResponse(epsilon: e, order: 2) - byHand) <= 1e-12 * byHand, "ε = \(e)")
        }
        // ε = 1, α = 2: ln(e − 1 + 1/e) = ln 2.0861612696… = 0.7353256640…
        #expect(abs(RDPCurve.randomizedResponse(epsilon: 1, order: 2) - 0.735_325_664_06) < 1e-10)
        for (e, a) in [(0.5, 3.0), (2.0, 1.5), (1.0, 10.0), (0.25, 64.0), (3.0, 1.1)] {
            let ours = RDPCurve.randomizedResponse(epsilon: e, order: a), theirs = Self.direct(epsilon: e, order: a)
            #expect(abs(ours - theirs) <= 1e-12 * theirs, "ε = \(e), α = \(a): \(ours) against \(theirs)")
        }
        for e in [1e-4, 0.01, 0.1, 0.5, 1, 2, 5, 10] {
            for a in RDPCurve.orders {
                let value = RDPCurve.randomizedResponse(epsilon: e, order: a)
                #expect(value >= 0 && value <= min(e, a * e * e / 2) * (1 + 1e-12), "ε = \(e), α = \(a): \(value)")
            }
        }
    }

    /// Gaussian releases alone: their curve is αρ, and the accountant's figure is the tight zCDP
    /// conversion of the summed ρ (`ApproximateDP`); the grid's own conversion is never below
    /// it and within 1 % of it.
    @Test func gaussianReleasesAloneGiveTheZCDPConversion() {
        for rhos in [[Rational(1, 8)], [Rational(1, 4), Rational(1, 4), Rational(1, 4)], [Rational(2), Rational(1, 2)]] {
            let curve = rhos.reduce(RDPCurve.zero) { $0.adding(RDPCurve(.zCDP(rho: $1))) }
            let rho = rhos.map(\.doubleValue).reduce(0, +)
            let zcdp = ApproximateDP.epsilon(rho: rho, delta: Self.delta)
            #expect(RenyiAccountant.epsilon(curve: curve, rho: rho, delta: Self.delta) == zcdp)
            let grid = curve.epsilon(delta: Self.delta)
            #expect(grid >= zcdp - 1e-9 && grid <= zcdp * 1.01, "ρ = \(rho): grid \(grid), zCDP \(zcdp)")
        }
    }

    /// The shipped specs per privacy unit: pipelines/releases.yaml's days and workouts, and
    /// pipelines/cohort.yaml's person.
    static func shippedTotals() throws -> [(name: String, total: ReleasePlan.UnitTotal, events: [(String, Double, Int)])] {
        let root = Support.packageRoot.path
        let person = try PipelineFile.load(path: root + "/pipelines/cohort.yaml").releases!
        let personal = try ReleaseSpec.load(path: root + "/pipelines/releases.yaml")
        var found: [(String, ReleasePlan.UnitTotal, [(String, Double, Int)])] = []
        for (name, spec, unit) in [
            ("releases.yaml", personal, ReleaseSpec.PrivacyUnit.day), ("releases.yaml", personal, .workout), ("cohort.yaml", person, .person),
        ] {
            let plan = try ReleasePlan(spec: spec)
            guard let total = plan.totals.first(where: { $0.unit == unit }) else { continue }
            // The events, as the ledger charges them: each release charged to its unit and
            // those inside it, a person's release once per period.
            let events = spec.releases.filter { ReleasePlan.units(inside: $0.privacyUnit).contains(unit) }.map { r in
                (
                    r.mechanism.rawValue, r.mechanism == .laplace ? r.epsilon! : r.rho!,
                    r.privacyUnit == .person ? max(1, Publication.all(of: r).count) : 1
                )
            }
            found.append((name, total, events))
        }
        return found
    }

    /// What the accountant says of the shipped specs at δ = 10⁻⁶, as docs/privacy.md states it
    /// (rounded up): a day of releases.yaml 2.006 (zCDP: 7.767), a workout 6.831 (11.246), a
    /// person of cohort.yaml, all Gaussian, 7.767 either way; never above the zCDP conversion.
    @Test func theShippedSpecsSpendLessByRenyiAccounting() throws {
        let totals = try Self.shippedTotals()
        #expect(totals.map(\.total.unit) == [.day, .workout, .person])
        for ((name, total, _), (stated, zcdpStated)) in zip(totals, [("2.006", "7.767"), ("6.831", "11.246"), ("7.767", "7.767")]) {
            let zcdp = ApproximateDP.epsilon(rho: total.rho, delta: Self.delta)
            let renyi = total.renyiEpsilon(delta: Self.delta)
            #expect(renyi <= zcdp, "\(name) \(total.unit): Rényi \(renyi), zCDP \(zcdp)")
            #expect(ReleaseRunner.format((renyi * 1000).rounded(.up) / 1000) == stated, "\(name) \(total.unit): \(renyi)")
            #expect(StatedGuarantee.epsilon(rho: total.rho, delta: Self.delta) == zcdpStated, "\(name) \(total.unit)")
        }
    }

    /// dp_accounting's `RdpAccountant`, on its default orders (ours), composing each shipped
    /// unit's releases: Laplace as binary `RandomizedResponseDpEvent` with the same ε (noise
    /// parameter 2/(1 + e^ε), replace-one), Gaussian as `GaussianDpEvent` of noise multiplier
    /// 1/√(2ρ), a person's release once per period. The curves agree order by order and the ε
    /// at δ = 10⁻⁶ within 10⁻⁶ of itself. With continuous `LaplaceDpEvent`s instead (whose RDP
    /// is below randomized response's) dp_accounting's ε is at most ours and within 5 % of it.
    @Test(.enabled(if: dpAccountingAvailable, "python3 cannot import dp_accounting (PyPI unreachable when make test installed it)"))
    func agreesWithDPAccounting() throws {
        let totals = try Self.shippedTotals()
        let units = totals.map { _, _, events in
            "[" + events.map { "(\"\($0.0)\", \($0.1), \($0.2))" }.joined(separator: ",") + "]"
        }
        let script = """
            import math, dp_accounting as dpa
            from dp_accounting.rdp import rdp_privacy_accountant as rdp
            R = dpa.NeighboringRelation
            for events in [\(units.joined(separator: ","))]:
                rr = rdp.RdpAccountant(neighboring_relation=R.REPLACE_ONE)
                lap = rdp.RdpAccountant()
                for kind, value, times in events:
                    g = dpa.GaussianDpEvent(noise_multiplier=1 / math.sqrt(2 * value)) if kind == "gaussian" else None
                    rr.compose(g or dpa.RandomizedResponseDpEvent(noise_parameter=2 / (1 + math.exp(value)), num_buckets=2), times)
                    lap.compose(g or dpa.LaplaceDpEvent(noise_multiplier=1 / value), times)
                print(repr(float(rr.get_epsilon(\(Self.delta)))), repr(float(lap.get_epsilon(\(Self.delta)))), " ".join(repr(float(x)) for x in rr._rdp))
            """
        let result = try Support.runProgram("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        #expect(rows.count == totals.count && rows.allSatisfy { $0.count == 2 + RDPCurve.orders.count }, "\(result.stdout)")
        for ((name, total, _), row) in zip(totals, rows) where row.count == 2 + RDPCurve.orders.count {
            let ours = total.rdp.epsilon(delta: Self.delta)
            let (theirs, laplace) = (row[0], row[1])
            #expect(abs(ours - theirs) <= 1e-6 * theirs, "\(name) \(total.unit): ours \(ours), dp_accounting \(theirs)")
            #expect(laplace <= ours * (1 + 1e-9) && laplace >= 0.95 * ours, "\(name) \(total.unit): ours \(ours), Laplace \(laplace)")
            for (k, (mine, theirs)) in zip(total.rdp.epsilons, row[2...]).enumerated() {
                #expect(abs(mine - theirs) <= 1e-9 * max(theirs, 1e-12), "\(name) \(total.unit) α = \(RDPCurve.orders[k])")
            }
        }
    }

    /// `--plan` states the Rényi figure beside the zCDP one for units that mix in Laplace
    /// releases, rounded up, and leaves a Gaussian-only unit as it was.
    @Test func thePlanStatesBothFigures() throws {
        let personal = try ReleaseSpec.load(path: Support.packageRoot.path + "/pipelines/releases.yaml")
        let plan = try ReleasePlan(spec: personal)
        for total in plan.totals {
            let renyi = ReleaseRunner.format((total.renyiEpsilon(delta: Self.delta) * 1000).rounded(.up) / 1000)
            let zcdp = StatedGuarantee.epsilon(rho: total.rho, delta: Self.delta)
            #expect(
                plan.text.contains(
                    "a \(total.unit.rawValue) has spent at most ρ = \(ReleaseRunner.format(total.rho)) of the budget ρ = 2, "
                        + "(ε, δ) = (\(zcdp), 1e-06) by zCDP, (\(renyi), 1e-06) by Rényi accounting\n"),
                "\(plan.text)")
        }
        var gaussian = personal
        gaussian.releases = personal.releases.filter { $0.mechanism == .gaussian }
        let alone = try ReleasePlan(spec: gaussian).text
        #expect(
            alone.contains("a workout has spent at most ρ = 0.25 of the budget ρ = 2, (ε, δ) = (3.543, 1e-06)\n") && !alone.contains("Rényi"),
            "\(alone)")
        var renyi = personal
        renyi.budget = ReleaseSpec.Budget(epsilon: 7, delta: 1e-6, accountant: .renyi)
        #expect(try ReleasePlan(spec: renyi).text.contains("by Rényi accounting of the budget (ε, δ) = (7, 1e-06)\n"))
    }

    /// `accountant: renyi` makes `epsilon` and `delta` an (ε, δ) total the ledger records
    /// exactly; without its epsilon the spec is refused, naming the key.
    @Test func aSpecStatesAnEpsilonDeltaBudget() throws {
        let dir = Support.temporaryDirectory()
        let release = """
            releases:
              - {id: x, metric: workouts.count, aggregate: count, partition: week, from: 2024-01-01, to: 2024-01-28,
                 privacy_unit: workout, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 1}

            """
        try ("budget: {epsilon: 8, delta: 1.0e-6, accountant: renyi}\n" + release).write(toFile: dir + "/a.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/a.yaml")
        #expect(spec.ledgerLimit == BudgetLimit(renyi: BudgetLimit.RenyiLimit(epsilon: Rational(8), delta: Rational(1, 1_000_000))))
        try ("budget: {rho: 2, accountant: renyi}\n" + release).write(toFile: dir + "/b.yaml", atomically: true, encoding: .utf8)
        #expect(throws: InputError.self) { try ReleaseSpec.load(path: dir + "/b.yaml") }
        do { _ = try ReleaseSpec.load(path: dir + "/b.yaml") } catch { #expect("\(error)".contains("accountant: renyi budgets an (ε, δ) total")) }
    }

    /// A day spending two Laplace releases of ε = 1 fits an (ε, δ) = (3, 10⁻⁶) budget by Rényi
    /// accounting (ε 2.006), though their ρ = 1 converts to ε 7.77 by zCDP; a third is over it
    /// and refused with one line, every file left as it was. The limit is in the first line,
    /// and the ledger opens again only under the same limit.
    @Test func theLedgerHoldsAnEpsilonDeltaBudgetByRenyiAccounting() throws {
        let path = BudgetLedgerTests.ledgerPath()
        let limit = BudgetLimit(renyi: BudgetLimit.RenyiLimit(epsilon: Rational(3), delta: Rational(1, 1_000_000)))
        let ledger = try BudgetLedger(path: path, limit: limit)
        let period = LedgerPeriod(first: "2024-01-01", last: "2024-01-31")
        #expect(ApproximateDP.epsilon(rho: 1, delta: Self.delta) > 3)
        func reserve(_ id: String) throws {
            _ = try ledger.reserve(
                release: id, fingerprint: BudgetLedgerTests.fingerprint(id), mechanism: "discrete_laplace",
                cost: .pureDP(epsilon: Rational(1)), unit: "day", period: period, noisyResult: Data("1\n".utf8))
        }
        try reserve("first")
        try reserve("second")
        let spent = ledger.spent(unit: "day")
        #expect(RenyiAccountant.epsilon(curve: spent.rdp, rho: spent.rho.doubleValue, delta: Self.delta) < 3)
        let before = BudgetLedgerTests.snapshot(path)
        let error = BudgetLedgerTests.ledgerError { try reserve("third") }
        #expect(error?.kind == .overBudget, "\(String(describing: error))")
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("release third refused, nothing recorded") && message.contains("by Rényi accounting"), "\(message)")
        #expect(message.contains("over the limit (ε, δ) = (3, 1e-06) by Rényi accounting") && !message.contains("\n"), "\(message)")
        #expect(BudgetLedgerTests.snapshot(path) == before)

        let opened = try BudgetLedgerTests.lines(path)[0]
        #expect(opened.contains("\"limit_renyi_epsilon\":\"3\",\"limit_renyi_delta\":\"1/1000000\""), "\(opened)")
        #expect(try BudgetLedger(path: path, limit: limit).spent(unit: "day").rho == Rational(1))
        let other = BudgetLedgerTests.ledgerError { _ = try BudgetLedger(path: path, limit: BudgetLimit(rho: Rational(2))).spent }
        #expect(other?.kind == .mismatch)
        // A Gaussian release is welcome under an (ε, δ) budget, as under a ρ one.
        let fresh = try BudgetLedger(path: BudgetLedgerTests.ledgerPath(#function + "-gaussian"), limit: limit)
        _ = try fresh.reserve(
            release: "g", fingerprint: BudgetLedgerTests.fingerprint("g"), mechanism: "discrete_gaussian",
            cost: .zCDP(rho: Rational(1, 10)), noisyResult: Data("1\n".utf8))
    }

    /// A pipeline is checked against an (ε, δ) budget as the ledger will check it: three Laplace
    /// releases of the days at ε 0.5 spend (1.504362, 10⁻⁶) a day (and a workout) by Rényi
    /// accounting, over 1.2 and within 1.6, though their ρ 0.375 converts to ε 4.1 by zCDP; a
    /// Gaussian release is no problem for such a budget (where a pure ε budget refuses it).
    @Test func aPipelineIsCheckedAgainstItsEpsilonDeltaBudget() throws {
        let releases = PipelineFileTests.release("a") + PipelineFileTests.release("b") + PipelineFileTests.release("c")
        let over = try PipelineFileTests.problems(
            PipelineFileTests.base + ["privacy:", "  budget: {epsilon: 1.2, accountant: renyi}", "  releases:"] + releases)
        #expect(over.map(\.keyPath) == ["privacy.budget", "privacy.budget"], "\(over)")
        #expect(
            over.first?.message.contains("spend (epsilon, delta) = (1.504362, 1e-06) for a day by Rényi accounting") == true, "\(over)")
        #expect(ApproximateDP.epsilon(rho: 0.375, delta: Self.delta) > 4)
        let within = PipelineFileTests.base + ["privacy:", "  budget: {epsilon: 1.6, accountant: renyi}", "  releases:"]
        #expect(try PipelineFileTests.problems(within + releases).isEmpty)
        var gaussian = PipelineFileTests.release("g")
        gaussian[gaussian.firstIndex(of: "      mechanism: laplace")!] = "      mechanism: gaussian"
        gaussian[gaussian.firstIndex(of: "      epsilon: 0.5")!] = "      rho: 0.1"
        gaussian[gaussian.firstIndex(of: "      upper: 40000")!] = "      upper: 100"
        let roomy = PipelineFileTests.base + ["privacy:", "  budget: {epsilon: 3, accountant: renyi}", "  releases:"]
        #expect(try PipelineFileTests.problems(roomy + gaussian).isEmpty)
    }

    /// End to end: two Laplace releases of ε 0.5 cost a workout (1.005, 10⁻⁶) by Rényi
    /// accounting, within an (ε, δ) = (1.2, 10⁻⁶) budget that their ρ 0.25 (ε 3.54 by zCDP) would
    /// not fit; new terms that would bring it to 1.504 are refused with one line, and neither
    /// dp/ nor the ledger changes.
    @Test func aReleaseRunHoldsTheEpsilonDeltaBudget() throws {
        let dir = Support.temporaryDirectory()
        func release(_ text: String) throws -> [ReleaseRunner.Outcome] {
            let renyi = text.replacingOccurrences(of: "budget:\n  epsilon: 1.2\n", with: "budget: {epsilon: 1.2, accountant: renyi}\n")
            #expect(renyi != text)
            try renyi.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
            return try ReleaseRunner.run(
                spec: try ReleaseSpec.load(path: dir + "/spec.yaml"), dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp",
                ledger: .testing(dir + "/out/privacy-ledger.jsonl"))
        }
        try ReleaseRunnerTests().runExport(seed: 3, into: dir)
        #expect(ApproximateDP.epsilon(rho: 0.25, delta: Self.delta) > 1.2)
        #expect(try release(ReleaseRunnerTests.spec(budget: "1.2")).map(\.charged) == [true, true])
        let dpBefore = try Support.snapshot(dir + "/out/dp")
        let ledgerBefore = try Support.snapshot(dir + "/out").filter { $0.key.hasPrefix("/privacy-ledger") }
        let error = #expect(throws: LedgerError.self) { try release(ReleaseRunnerTests.spec(budget: "1.2", stepsResolution: 20)) }
        let message = error.map { "\($0)" } ?? ""
        #expect(error?.kind == .overBudget && message.contains("refused, nothing recorded"), "\(message)")
        #expect(message.contains("by Rényi accounting, over the limit (ε, δ) = (6/5, 1e-06)") && !message.contains("\n"), "\(message)")
        #expect(try Support.snapshot(dir + "/out/dp") == dpBefore)
        #expect(try Support.snapshot(dir + "/out").filter { $0.key.hasPrefix("/privacy-ledger") } == ledgerBefore)
    }
}
