import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit
import HealthTrailPrivacy
import HealthTrailRun

/// `healthtrail release`: bounds the contributions of a run's outputs (or takes the bounded
/// totals of a cohort's merged partial aggregate), adds noise once and writes
/// `dp/<release>.csv`, every spend recorded in the budget ledger first.
///
/// Noise per release: counts have L1 sensitivity K·M and sums K·M·B (B the largest clamped
/// magnitude, in resolution units). Discrete Laplace at scale Δ/ε for pure ε-DP; discrete
/// Gaussian at σ² = Δ₂²/(2ρ) for ρ-zCDP, with Δ₂² = K·M²·B² (a unit's K partitions each change
/// by at most M·B). A mean spends half its budget on the count and half on the centred sum.
package enum ReleaseRunner {
    package struct Outcome: Sendable {
        package var id: String
        /// True when this run drew at least one new publication and spent budget on it; false
        /// when every publication was answered from the ledger (or none is due yet).
        package var charged: Bool
        /// Noisy values in the published file (partitions, or density cells).
        package var partitions: Int
        package var path: String
        /// The release's guarantee in the standard form (`ε = 0.5`, or ρ with its (ε, δ)).
        package var guarantee: String
        /// Publications in the file, and how many of them this run drew.
        package var published = 0
        package var drawn = 0
        /// The date the next publication becomes due (`yyyy-MM-dd`), nil when none is left.
        package var nextDue: String?
        /// The budget ledger the spend is recorded in.
        package var ledgerPath = ""
    }

    /// The columns of `dp/<release>.csv`: those of the table as drawn and stored in the ledger
    /// (`drawnColumns`), then `drawn_value` and `post_processing` (see `PostProcessing`), then
    /// `ledger` and `ledger_seq` (`ledgerColumns`).
    package static let columns = drawnColumns + ["drawn_value", "post_processing"] + ledgerColumns

    /// The columns of a publication's table as drawn, the bytes the ledger stores: a replay
    /// publishes what was drawn, post-processed again. `persons` is the person mapping the draw
    /// assumed (`PersonsSource.label`, or `self`): stored with the draw, so a period drawn
    /// before a persons file was added keeps saying what it assumed.
    static let drawnColumns = [
        "partition", "aggregate", "value", "ci95_low", "ci95_high", "error95", "mechanism",
        "epsilon", "rho", "delta", "lower", "upper", "resolution", "privacy_unit",
        "max_partitions", "max_contributions", "persons",
    ]

    /// What every published DP row ends with: the identity of the budget ledger that recorded
    /// its draw (`BudgetLedger.identity`) and the line of that ledger recording it (its
    /// reservation's seq). Both are the same for every replay; a file from another ledger (a
    /// reset budget) shows another identity.
    package static let ledgerColumns = ["ledger", "ledger_seq"]

    /// The `persons` of a row stored before draws recorded their person mapping.
    static let personsNotRecorded = "not recorded"

    /// The `persons` of one person's own releases: the data is theirs alone.
    package static let personsSelf = "self"

    /// The `persons` of a merged partial released without its pipeline: nothing says how its
    /// archives were mapped to persons.
    package static let personsNotStated = "not stated"

    /// Releases one person's run outputs (`daily.csv`, `workouts.csv`, `route_points.csv` in
    /// `dataDirectory`): their partial aggregate, as person `self`, released at once.
    ///
    /// - Parameter asOf: the date the run counts as today (`yyyy-MM-dd`, UTC); a publication is
    ///   due from the second day after its period (see `Publication`). Default: today.
    package static func run(
        spec: ReleaseSpec, dataDirectory: String, outputDirectory: String,
        ledger: LedgerLocation, asOf: String? = nil
    ) throws -> [Outcome] {
        // An earlier HealthTrail kept the ledger beside the outputs. Starting a new one elsewhere
        // would quietly reset that budget: refuse, and say how to carry it over by hand.
        let earlier = dataDirectory + "/privacy-ledger.jsonl"
        if ledger.ledgerFile != earlier, access(earlier, F_OK) == 0 {
            throw InputError(
                file: earlier,
                "a budget ledger of an earlier HealthTrail: its spend would not count in the subject's ledger; "
                    + "keep it, and move it out of the way only if you accept that this budget starts over")
        }
        let partial = try PartialAggregate.build(spec: spec, runDirectory: dataDirectory, person: "self")
        return try run(spec: spec, partial: partial, outputDirectory: outputDirectory, ledger: ledger, asOf: asOf, persons: personsSelf)
    }

    /// Releases bounded totals (one person's, or a cohort's merged with `PartialAggregate.merge`):
    /// noise drawn once per release, every spend recorded in the ledger first.
    ///
    /// The ledger fingerprint of a publication covers the release's terms and its period, never
    /// the totals (`fingerprint(_:_:ledger:)`): a period is drawn once, and every later run
    /// answers it from the ledger and spends nothing, whatever the data says now.
    ///
    /// - Parameter persons: the person mapping the totals were merged under, stored with every
    ///   new draw and published in its `persons` column (never part of the fingerprint: adding
    ///   a persons file redraws nothing).
    /// - Throws: `InputError` naming the partial's file when it was computed for other release
    ///   definitions than `spec`, lacks one of its releases, or holds a partition a release does
    ///   not declare or a total beyond `largestTotal`: all checked before anything is spent or
    ///   published. `LedgerError` (over budget, …).
    package static func run(
        spec: ReleaseSpec, partial: PartialAggregate, outputDirectory: String,
        ledger: LedgerLocation, asOf: String? = nil, persons: String = personsNotStated
    ) throws -> [Outcome] {
        let outcomes = try spendAndPublish(
            spec: spec, partial: partial, outputDirectory: outputDirectory, ledger: ledger, asOf: asOf, persons: persons)
        logPublished(outcomes, spec: spec)
        return outcomes
    }

    /// One line on a release's outcome, for people: what is published, its guarantee, where,
    /// whether this run spent budget, and when the next period is due. Public facts only.
    package static func summary(of o: Outcome) -> String {
        let next = o.nextDue.map { "; next period due \($0)" } ?? ""
        guard o.published > 0 else {
            return "\(o.id): nothing due yet" + (o.nextDue.map { ": its first period can be published from \($0)" } ?? "")
        }
        let spend =
            o.drawn == 0
            ? " (already published: nothing spent)"
            : o.drawn < o.published ? " (\(o.drawn) of \(o.published) periods new)" : ""
        return "\(o.id): \(o.partitions) partitions, \(o.guarantee) → \(o.path)\(spend)\(next)"
    }

    /// `release.published`, one event per release: its id, partitions, file, and whether it
    /// spent budget (false: a replay answered from the ledger). Never a released value. (A spec
    /// the ledger refuses throws `LedgerError`; the tool reports it as `release.refused`.)
    static func logPublished(_ outcomes: [Outcome], spec: ReleaseSpec) {
        let log = HealthTrailLog.logger
        for (outcome, release) in zip(outcomes, spec.releases) {
            guard outcome.published > 0 else {
                log.info(
                    "release \(outcome.id): nothing due yet",
                    metadata: [
                        "event": "release.not_due", "release": .string(outcome.id), "next_due": .string(outcome.nextDue ?? ""),
                        "ledger": .string(outcome.ledgerPath),
                    ])
                continue
            }
            log.info(
                "release \(outcome.id) published\(outcome.charged ? "" : " (nothing new: nothing spent)")",
                metadata: [
                    "event": "release.published", "release": .string(outcome.id), "partitions": .stringConvertible(outcome.partitions),
                    "charged": .stringConvertible(outcome.charged), "file": .string(outcome.path),
                    "mechanism": .string(release.mechanism.rawValue), "privacy_unit": .string(release.privacyUnit.rawValue),
                    "guarantee": .string(outcome.guarantee), "periods": .stringConvertible(outcome.published),
                    "periods_drawn": .stringConvertible(outcome.drawn), "ledger": .string(outcome.ledgerPath),
                ].merging(outcome.nextDue.map { ["next_due": .string($0)] } ?? [:]) { a, _ in a })
        }
    }

    /// Checks, spends and publishes (`run(spec:partial:outputDirectory:ledger:asOf:)`).
    static func spendAndPublish(
        spec: ReleaseSpec, partial: PartialAggregate, outputDirectory: String,
        ledger location: LedgerLocation, asOf: String?, persons: String
    ) throws -> [Outcome] {
        let asOf = asOf ?? Publication.today()
        guard let today = PublicPartitions.day(asOf), Publication.date(today) == asOf else {
            throw InputError(file: asOf, "the date a run counts as today must be yyyy-MM-dd")
        }
        // A later date would publish periods whose data has not come in, and never redraw them.
        guard asOf <= Publication.today() else {
            throw InputError(file: asOf, "the date a run counts as today cannot be later than today (\(Publication.today()), UTC)")
        }
        guard partial.specSHA256 == (try PartialAggregate.specFingerprint(of: spec)) else {
            throw InputError(
                file: partial.displayName,
                "computed for other release definitions than this spec: "
                    + "build the partials again with this spec")
        }
        let checked = try spec.releases.map { try checkedTotals(of: $0, in: partial) }
        try OutputStaging.makeDirectory(outputDirectory)
        let ledger = try location.open(limit: spec.ledgerLimit)
        // Every release is prepared, then the spec is spent whole or not at all, then every
        // file is published together: a spec that does not fit spends and publishes nothing.
        var requests: [BudgetLedger.Request] = []
        var prepared: [Prepared] = []
        for (release, totals) in zip(spec.releases, checked) {
            let publications = Publication.all(of: release)
            let due = publications.filter { $0.publishableFrom <= today }
            let next = publications.first { $0.publishableFrom > today }.map { Publication.date($0.publishableFrom) }
            var one =
                release.aggregate == .density
                ? try prepareDensity(
                    release, totals: totals, due: due, ledger: ledger, source: partial.displayName,
                    outputDirectory: outputDirectory, delta: spec.statedDelta, persons: persons)
                : try prepare(
                    release, totals: totals, due: due, ledger: ledger, outputDirectory: outputDirectory, delta: spec.statedDelta,
                    persons: persons)
            (one.outcome.nextDue, one.outcome.ledgerPath, one.outcome.published) = (next, ledger.path, due.count)
            requests += one.requests
            prepared.append(one)
        }
        try refuseFilesOfAnotherLedger(prepared, requests: requests, ledger: ledger)
        let reservations = try ledger.releaseAll(requests) { reservations in
            var files: [(path: String, bytes: Data)] = [], start = 0
            for one in prepared {
                let mine = reservations[start..<start + one.requests.count].map { Drawn(table: $0.release.result, seq: $0.release.seq) }
                start += one.requests.count
                if !mine.isEmpty { files += try one.files(mine) }
            }
            try publishTogether(files)
        }
        var start = 0
        return prepared.map { one in
            var outcome = one.outcome
            outcome.drawn = reservations[start..<start + one.requests.count].filter(\.charged).count
            outcome.charged = outcome.drawn > 0
            start += one.requests.count
            return outcome
        }
    }

    /// A release file already in `dp/` that this ledger never released was published under
    /// another one: the ledger was deleted or moved, or the budget folder, key or subject changed.
    /// Drawing it again would put fresh noise on the same periods, which averages away: refuse,
    /// before anything is drawn. Whether the file exists is public; the data plays no part.
    static func refuseFilesOfAnotherLedger(_ prepared: [Prepared], requests: [BudgetLedger.Request], ledger: BudgetLedger) throws {
        let released = try ledger.releasedIDs()
        for one in prepared where !one.requests.isEmpty && !released.contains(one.outcome.id) {
            guard access(one.outcome.path, F_OK) == 0 else { continue }
            throw InputError(
                file: one.outcome.path,
                "published under another budget ledger: \(ledger.path) has never released \(one.outcome.id) "
                    + "(was the ledger deleted or moved, or the budget folder, key or subject changed?); "
                    + "restore that ledger, or move this file away to start the release over "
                    + "(a file of an earlier HealthTrail, whose ledger cannot be carried over, too)")
        }
    }

    /// The keyed fingerprint of one publication: the release's terms and the period, nothing
    /// from the data. A weekly release leaves `from` and `to` out of its terms, so a spec whose
    /// `to` moves on keeps the weeks already published.
    static func fingerprint(_ release: ReleaseSpec.Release, _ publication: Publication, ledger: BudgetLedger) throws -> String {
        // Defaults written out or left out are the same release: fill them in first.
        var terms = release.terms
        terms.cadence = release.cadence ?? .once
        terms.resolution = release.resolution ?? 1
        if release.partition.byActivity { terms.activities = (release.activities ?? PublicPartitions.defaultActivities).sorted() }
        if terms.cadence != .once { (terms.from, terms.to) = ("", "") }
        let text = try String(decoding: JSONEncoder.sorted.encode(terms), as: UTF8.self) + "\nperiod \(publication.period)\n"
        return ledger.fingerprint(of: Array(text.utf8))
    }

    /// One publication's stored table and the ledger line that recorded it.
    struct Drawn {
        var table: Data
        var seq: Int
    }

    /// One release's CSV from its publications' stored tables: the header once, then every
    /// publication's rows in order, each post-processed (`PostProcessing`) and ending with the
    /// ledger's identity and the line that recorded its draw.
    static func joinedTables(_ tables: [Drawn], release: ReleaseSpec.Release, ledger identity: String) -> Data {
        var out = Data((columns.joined(separator: ",") + "\n").utf8)
        let rule = PostProcessing(release)
        for drawn in tables {
            // Stored rows have the drawn columns (those stored before `persons` was, one fewer):
            // a table of another width has none to publish.
            for var row in CSVTable(text: String(decoding: drawn.table, as: UTF8.self)).rows
            where row.count == drawnColumns.count || row.count == drawnColumns.count - 1 {
                if row.count < drawnColumns.count { row.append(personsNotRecorded) }
                let fields = rule.apply(to: row) + [identity, "\(drawn.seq)"]
                out += (fields.map { $0.contains(",") ? "\"\($0)\"" : $0 }.joined(separator: ",") + "\n").utf8
            }
        }
        return out
    }

    /// A release ready to be spent: a ledger request per due publication, the files their
    /// results are published as (given in the same order), and its outcome but for what the
    /// ledger answers.
    struct Prepared {
        var requests: [BudgetLedger.Request]
        var files: ([Drawn]) throws -> [(path: String, bytes: Data)]
        var outcome: Outcome
    }

    /// A count, sum or mean release: `dp/<id>.csv`, a row per public partition of every due
    /// publication.
    static func prepare(
        _ release: ReleaseSpec.Release, totals: BoundedTotals, due: [Publication], ledger: BudgetLedger,
        outputDirectory: String, delta: Double, persons: String
    ) throws -> Prepared {
        let plan = try NoisePlan(release)
        let guarantee = StatedGuarantee(release, delta: delta)
        let requests = try due.map { publication in
            BudgetLedger.Request(
                id: release.id, fingerprint: try fingerprint(release, publication, ledger: ledger),
                mechanism: plan.mechanismName, cost: plan.cost, unit: release.privacyUnit.rawValue, period: publication.period,
                draw: {
                    Data(
                        try noisyTable(
                            release, keys: publication.keys, totals: totals, plan: plan, guarantee: guarantee, persons: persons))
                })
        }
        let path = outputDirectory + "/\(release.id).csv"
        let identity = try ledger.identity()
        return Prepared(
            requests: requests, files: { [(path, joinedTables($0, release: release, ledger: identity))] },
            outcome: Outcome(
                id: release.id, charged: false, partitions: due.reduce(0) { $0 + $1.keys.count }, path: path,
                guarantee: guarantee.sentence))
    }

    /// Writes every file of a spec's releases under a temporary name, then renames each into
    /// place: a failure before the renames publishes nothing. A file already holding its bytes
    /// (a replay) is left untouched.
    static func publishTogether(_ files: [(path: String, bytes: Data)]) throws {
        var staged: [(temporary: String, path: String)] = []
        do {
            for file in files where FileManager.default.contents(atPath: file.path) != file.bytes {
                let temporary = file.path + ".tmp-\(getpid())"
                try OutputFile.write([UInt8](file.bytes), to: temporary)
                staged.append((temporary, file.path))
            }
        } catch {
            for file in staged { unlink(file.temporary) }
            throw error
        }
        for (k, file) in staged.enumerated() where rename(file.temporary, file.path) != 0 {
            let reason = String(cString: strerror(errno))
            for rest in staged[k...] { unlink(rest.temporary) }
            throw InputError(file: file.path, "cannot publish the release: \(reason)")
        }
    }

    /// The largest total a release takes: released values are written from doubles, which hold
    /// every integer up to 2^53 exactly. Real totals (contributions of a cohort, bounded) stay
    /// many orders of magnitude below it.
    static let largestTotal: Int64 = 1 << 53

    /// A release's totals once they are known to be safe to release: every partition declared
    /// and every total, and every sum in the release's own unit, within ±`largestTotal`. A
    /// partial is untrusted input (a file anyone may have edited), so this runs for every
    /// release before the first is spent or published; the message never holds the value.
    static func checkedTotals(of release: ReleaseSpec.Release, in partial: PartialAggregate) throws -> BoundedTotals {
        func corrupt(_ what: String) -> InputError {
            InputError(file: partial.displayName, "corrupt partial aggregate (release \(release.id) \(what))")
        }
        guard let totals = partial.releases[release.id] else { throw corrupt("is missing") }
        if release.aggregate == .density {
            _ = try cellCounts(release, totals: totals, source: partial.displayName)
        } else {
            let known = Set(PublicPartitions.keys(for: release))
            guard totals.counts.keys.allSatisfy(known.contains), totals.sums.keys.allSatisfy(known.contains) else {
                throw corrupt("holds a partition it does not declare")
            }
        }
        let resolution = release.resolution ?? 1
        let limit = Double(largestTotal)
        guard totals.counts.values.allSatisfy({ $0.magnitude <= largestTotal.magnitude }),
            totals.sums.values.allSatisfy({ $0.magnitude <= largestTotal.magnitude && Double($0).magnitude * resolution <= limit })
        else {
            throw corrupt("holds a total beyond 2^53, more than any release can carry")
        }
        return totals
    }

    /// The DP density release: `dp/<id>.csv` (every cell) and `dp/<id>.svg` (its picture).
    static func prepareDensity(
        _ release: ReleaseSpec.Release, totals: BoundedTotals, due: [Publication], ledger: BudgetLedger, source: String,
        outputDirectory: String, delta: Double, persons: String
    ) throws -> Prepared {
        let guarantee = StatedGuarantee(release, delta: delta)
        let grid = DensityRelease.grid(for: release)
        let counts = try cellCounts(release, totals: totals, source: source)
        let (mechanism, cost, name) = try densityNoise(release)
        let csvPath = outputDirectory + "/\(release.id).csv", svgPath = outputDirectory + "/\(release.id).svg"
        // One map: `cadence: once`, or `year` over one calendar year (the spec checks it).
        let requests = try due.map { publication in
            BudgetLedger.Request(
                id: release.id, fingerprint: try fingerprint(release, publication, ledger: ledger), mechanism: name, cost: cost,
                unit: release.privacyUnit.rawValue, period: publication.period,
                draw: {
                    Data(
                        try DensityRelease.noisyTable(
                            release, grid: grid, counts: counts, mechanism: mechanism, name: name, guarantee: guarantee,
                            persons: persons))
                })
        }
        let identity = try ledger.identity()
        return Prepared(
            requests: requests,
            files: { tables in
                let published = DensityRelease.published(tables[0].table, ledger: identity, seq: tables[0].seq)
                let svg = try DensityRelease.svg(fromTable: published, grid: grid, release: release, guarantee: guarantee)
                return [(csvPath, published), (svgPath, Data(svg))]
            },
            outcome: Outcome(
                id: release.id, charged: false, partitions: due.isEmpty ? 0 : grid.width * grid.height, path: csvPath,
                guarantee: guarantee.sentence))
    }

    /// A density release's noise: one count per cell, sensitivity K (a unit adds 1 to at most K
    /// cells), with its cost and mechanism name.
    static func densityNoise(_ release: ReleaseSpec.Release) throws -> (NoiseMechanism, PrivacyCost, String) {
        let k = Int64(release.maxPartitions)
        let mechanism: NoiseMechanism, cost: PrivacyCost, name: String
        do {
            switch release.mechanism {
            case .laplace:
                let epsilon = Rational(String(release.epsilon!))!
                (mechanism, cost, name) = (try .laplace(sensitivity: k, epsilon: epsilon), .pureDP(epsilon: epsilon), "discrete_laplace")
            case .gaussian:
                // Δ₂² = K: a unit adds 1 to at most K cells.
                let rho = Rational(String(release.rho!))!
                let sigma2 = Rational(k).dividedReportingOverflow(by: rho.multipliedReportingOverflow(by: Rational(2))!)!
                (mechanism, cost, name) = (.discreteGaussian(sigmaSquared: sigma2), .zCDP(rho: rho), "discrete_gaussian")
                try mechanism.validate()
            }
        } catch {
            throw InputError(file: release.id, "release \(release.id): noise parameters out of range: \(error)")
        }
        return (mechanism, cost, name)
    }

    /// A density release's counts per cell of its grid (row-major).
    static func cellCounts(_ release: ReleaseSpec.Release, totals: BoundedTotals, source: String) throws -> [Int64] {
        let grid = DensityRelease.grid(for: release)
        var counts = [Int64](repeating: 0, count: grid.width * grid.height)
        for (key, count) in totals.counts {
            guard let cell = Int(key), counts.indices.contains(cell), String(cell) == key else {
                throw InputError(file: source, "corrupt partial aggregate (release \(release.id) holds a cell outside its grid)")
            }
            counts[cell] = count
        }
        return counts
    }

    /// The noisy CSV of one release: one row per public partition.
    static func noisyTable(
        _ r: ReleaseSpec.Release, keys: [String], totals: BoundedTotals, plan: NoisePlan, guarantee: StatedGuarantee,
        persons: String
    ) throws -> [UInt8] {
        var text = drawnColumns.joined(separator: ",") + "\n"
        let resolution = r.resolution ?? 1
        let lower = r.lower ?? 0, upper = r.upper ?? 0, centre = (lower + upper) / 2
        for key in keys {
            let count = totals.counts[key] ?? 0, sum = totals.sums[key] ?? 0
            var value = 0.0, low = 0.0, high = 0.0, error = 0.0
            switch r.aggregate {
            case .count:
                let noisy = try plan.count!.noisy(count)
                let e = Double(plan.count!.errorBar95())
                (value, error, low, high) = (Double(noisy), e, Double(noisy) - e, Double(noisy) + e)
            case .sum:
                let noisy = try plan.sum!.noisy(sum)
                let e = Double(plan.sum!.errorBar95()) * resolution
                value = Double(noisy) * resolution
                (error, low, high) = (e, value - e, value + e)
            case .density:
                continue   // drawn by DensityRelease
            case .mean:
                // Mean = centre + noisy centred sum / noisy count; the interval takes the corners of
                // both 95 % error bars (it covers the true mean whenever both bars hold, at least
                // 0.95² of the time), clamped to the declared bounds.
                let c = Double(try plan.count!.noisy(count)), s = Double(try plan.sum!.noisy(sum)) * resolution
                let ec = Double(plan.count!.errorBar95()), es = Double(plan.sum!.errorBar95()) * resolution
                value = min(max(centre + s / max(1, c), lower), upper)
                let corners = [(s - es, c - ec), (s - es, c + ec), (s + es, c - ec), (s + es, c + ec)]
                    .map { centre + $0.0 / max(1, $0.1) }
                low = max(lower, corners.min()!); high = min(upper, corners.max()!)
                error = (high - low) / 2
            }
            let fields: [String] = [
                key, r.aggregate.rawValue, format(value), format(low), format(high), format(error),
                plan.mechanismName, guarantee.epsilon, guarantee.rho, guarantee.delta, r.lower.map { format($0) } ?? "",
                r.upper.map { format($0) } ?? "",
                format(resolution), r.privacyUnit.rawValue, "\(r.maxPartitions)", "\(r.maxContributions)", persons,
            ]
            text += fields.map { $0.contains(",") ? "\"\($0)\"" : $0 }.joined(separator: ",") + "\n"
        }
        return Array(text.utf8)
    }

    /// A value with at most three decimals, whole numbers without a fraction. Never traps:
    /// `checkedTotals` keeps released values far inside Int64, and a value beyond it anyway
    /// would be written as the double it is rather than converted.
    static func format(_ v: Double) -> String {
        let rounded = (v * 1000).rounded() / 1000
        if let whole = Int64(exactly: rounded) { return String(whole) }
        return String(rounded)
    }
}

/// The mechanisms of one release and what they cost.
struct NoisePlan {
    let count: NoiseMechanism?
    let sum: NoiseMechanism?
    let cost: PrivacyCost
    let mechanismName: String

    init(_ r: ReleaseSpec.Release) throws {
        let k = Int64(r.maxPartitions), m = Int64(r.maxContributions), b = ContributionBounding.valueBound(r)
        // Sensitivities are products of declared numbers: checked, never wrapped (a wrapped
        // sensitivity would mean far too little noise).
        func product(_ factors: Int64...) throws -> Int64 {
            var p: Int64 = 1
            for f in factors {
                let (v, overflow) = p.multipliedReportingOverflow(by: f)
                guard !overflow else { throw InputError(file: r.id, "release \(r.id): sensitivity overflows; lower the bounds, K or M") }
                p = v
            }
            return p
        }
        let needsCount = r.aggregate != .sum, needsSum = r.aggregate != .count
        let parts = Int64((needsCount ? 1 : 0) + (needsSum ? 1 : 0))
        func fail(_ e: Error) -> InputError { InputError(file: r.id, "release \(r.id): noise parameters out of range: \(e)") }
        do {
            switch r.mechanism {
            case .laplace:
                guard let epsilon = r.epsilon.flatMap({ Rational(String($0)) }) else { throw InputError(file: r.id, "bad epsilon") }
                let share = epsilon.dividedReportingOverflow(by: Rational(parts))!
                count = needsCount ? try NoiseMechanism.laplace(sensitivity: try product(k, m), epsilon: share) : nil
                sum = needsSum ? try NoiseMechanism.laplace(sensitivity: try product(k, m, b), epsilon: share) : nil
                cost = .pureDP(epsilon: epsilon)
                mechanismName = "discrete_laplace"
            case .gaussian:
                guard let rho = r.rho.flatMap({ Rational(String($0)) }) else { throw InputError(file: r.id, "bad rho") }
                let share = rho.dividedReportingOverflow(by: Rational(parts))!
                // σ² = Δ₂²/(2ρ) with Δ₂² = K·M²·(bound)²: the L2 norm over a unit's K partitions.
                func sigma2(_ bound: Int64) throws -> Rational {
                    guard let twoRho = share.multipliedReportingOverflow(by: Rational(2)),
                        let s = Rational(try product(k, m, m, bound, bound)).dividedReportingOverflow(by: twoRho)
                    else {
                        throw InputError(file: r.id, "release \(r.id): noise variance overflows; lower the bounds, K or M")
                    }
                    return s
                }
                count = needsCount ? .discreteGaussian(sigmaSquared: try sigma2(1)) : nil
                sum = needsSum ? .discreteGaussian(sigmaSquared: try sigma2(b)) : nil
                try count?.validate(); try sum?.validate()
                cost = .zCDP(rho: rho)
                mechanismName = "discrete_gaussian"
            }
        } catch let e as InputError {
            throw e
        } catch {
            throw fail(error)
        }
    }
}

extension JSONEncoder {
    /// Deterministic JSON: the fingerprint of a release's terms must not depend on key order.
    static var sorted: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }
}
