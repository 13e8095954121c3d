import HealthTrailArchive
import HealthTrailBase
import Yams

/// Builds `ReleaseSpec` releases from YAML nodes: a release file, or the inline list of a
/// pipeline's `privacy.releases`. Every `ReleaseSpec.Release` check failure is reported at the
/// offending key's line (the release's first line when the key is absent).
enum ReleaseSpecReader {
    /// A release as read, with the node it came from so later checks can point into it.
    struct Item {
        var release: ReleaseSpec.Release
        var node: Node
        /// Its place in the list (0-based), for key paths.
        var index: Int
        /// False when the release left `privacy_unit` out and the pipeline's unit filled it.
        var statedUnit: Bool
        /// No problem was found in it (its cost can be trusted).
        var valid: Bool
    }

    /// A whole release file: parsed, checked against the schema, every release built and
    /// checked. Nil when the text is not YAML or not a mapping (problems say why).
    ///
    /// Relative dates (`ReleaseDates`) are read against `today` (days since 1970-01-01, UTC).
    static func readFile(
        text: String, defaultUnit: ReleaseSpec.PrivacyUnit?,
        walker: inout YAMLSchemaWalker, today: Int64 = ReleaseDates.today()
    ) -> (items: [Item], budget: ReleaseSpec.Budget?, budgetNode: Node?)? {
        guard let root = walker.parse(text) else { return nil }
        walker.check(root, ReleaseSchema.releaseFile(unitRequired: defaultUnit == nil), path: "")
        guard case .mapping = root else { return nil }
        let list = root["releases"]
        let items = list.map { self.items(of: $0, path: "releases", defaultUnit: defaultUnit, walker: &walker, today: today) } ?? []
        checkBudget(root["budget"], path: "budget", walker: &walker)
        return (items, budget(root["budget"]), root["budget"])
    }

    /// The releases of a list node the caller has already checked against `ReleaseSchema`:
    /// builds the well-formed ones and reports their check failures and repeated ids.
    static func items(
        of list: Node, path: String, defaultUnit: ReleaseSpec.PrivacyUnit?,
        walker: inout YAMLSchemaWalker, today: Int64 = ReleaseDates.today()
    ) -> [Item] {
        guard case .sequence(let sequence) = list else { return [] }
        let schema = ReleaseSchema.release(unitRequired: defaultUnit == nil)
        var items: [Item] = []
        var firstLine: [String: Int] = [:]
        for (i, node) in sequence.enumerated() {
            // Shape problems were reported by the caller's walk. A release whose required keys
            // are readable is still checked for meaning, except on the keys with shape problems
            // (a mistyped `lower` would otherwise come back as "needs bounds").
            var scratch = YAMLSchemaWalker()
            scratch.check(node, schema, path: "")
            let badKeys = Set(scratch.problems.map { String($0.keyPath.prefix { $0 != "." && $0 != "[" }) })
            let itemPath = "\(path)[\(i)]"
            // A release missing a required key (or with one unreadable) is still checked on
            // every other key, so that one mistake does not hide the next: the missing keys
            // get stand-ins that pass their own checks, and nothing is said about them here
            // (the schema walk has said it).
            var (release, filled) = lenientRelease(node, defaultUnit: defaultUnit, placeholderID: itemPath)
            let relative = ReleaseDates.isRelative(release.from) || ReleaseDates.isRelative(release.to)
            release.from = ReleaseDates.resolve(release.from, end: .from, today: today)
            release.to = ReleaseDates.resolve(release.to, end: .to, today: today)
            var skipped = badKeys.union(filled)
            // Without a mechanism, which of epsilon and rho it needs is unknown.
            if filled.contains("mechanism") { skipped.formUnion(["epsilon", "rho"]) }
            var mistakes = release.mistakes()
            // Published once, a release whose dates move would be a new release every day.
            if relative && (release.cadence ?? .once) == .once {
                mistakes.append(("cadence", "relative dates roll on with a cadence: give cadence week, month or year"))
            }
            mistakes = mistakes.filter { !skipped.contains($0.key) }
            for (key, message) in mistakes {
                walker.report(node[key] ?? node, path: itemPath + "." + key, "release \(release.id): \(message)")
            }
            var valid = mistakes.isEmpty && skipped.isEmpty
            // The noise is checked whenever the keys it is made of are sound, whatever else is wrong.
            let noiseSound = skipped.union(mistakes.map(\.key)).isDisjoint(with: Self.noiseKeys)
            if noiseSound && release.aggregate != .density {
                do {
                    _ = try NoisePlan(release)
                } catch {
                    valid = false
                    let message = (error as? InputError)?.message ?? "noise parameters out of range: \(error)"
                    walker.report(node["mechanism"] ?? node, path: itemPath + ".mechanism", message)
                }
            }
            guard filled.isEmpty else { continue }
            let idNode = node["id"] ?? node
            if let first = firstLine[release.id] {
                walker.report(idNode, path: itemPath + ".id", "release ids must be unique: \(release.id) is also at line \(first)")
            } else {
                firstLine[release.id] = YAMLValue.position(idNode).line
            }
            items.append(
                Item(release: release, node: node, index: i, statedUnit: node["privacy_unit"].map { !YAMLValue.isNull($0) } ?? false, valid: valid))
        }
        return items
    }

    /// `budget: {epsilon: …, rho: …}`; nil when absent or not a mapping.
    static func budget(_ node: Node?) -> ReleaseSpec.Budget? {
        guard let node, case .mapping = node else { return nil }
        return ReleaseSpec.Budget(
            epsilon: node["epsilon"].flatMap(YAMLValue.number), rho: node["rho"].flatMap(YAMLValue.number),
            delta: node["delta"].flatMap(YAMLValue.number),
            accountant: node["accountant"].flatMap(YAMLValue.text).flatMap(ReleaseSpec.Accountant.init(rawValue:)))
    }

    /// Reports an `accountant: renyi` budget without the `epsilon` of its (ε, δ) total.
    static func checkBudget(_ node: Node?, path: String, walker: inout YAMLSchemaWalker) {
        guard let node, let budget = budget(node), budget.accountant == .renyi, budget.epsilon == nil else { return }
        walker.report(node, path: path, "accountant: renyi budgets an (ε, δ) total: give its epsilon (and delta, default 1e-6)")
    }

    /// The keys the noise of a release is computed from (`NoisePlan`).
    static let noiseKeys: Set<String> = [
        "aggregate", "lower", "upper", "resolution", "max_partitions", "max_contributions",
        "mechanism", "epsilon", "rho",
    ]

    /// A release from any mapping: required keys that are missing or unreadable get stand-ins
    /// that pass their own checks, and are returned in `filled` (empty: the mapping conforms
    /// to `ReleaseSchema.release`, and the release is `release(_:defaultUnit:)`'s).
    static func lenientRelease(_ node: Node, defaultUnit: ReleaseSpec.PrivacyUnit?, placeholderID: String)
        -> (release: ReleaseSpec.Release, filled: Set<String>)
    {
        if let release = release(node, defaultUnit: defaultUnit) { return (release, []) }
        var filled: Set<String> = []
        func value(_ key: String) -> Node? { node[key].flatMap { YAMLValue.isNull($0) ? nil : $0 } }
        func required<T>(_ key: String, _ read: T?, _ standIn: T) -> T {
            if let read { return read }
            filled.insert(key)
            return standIn
        }
        let aggregate = required("aggregate", value("aggregate").flatMap(YAMLValue.text).flatMap(ReleaseSpec.Aggregate.init(rawValue:)), .count)
        let epsilon = value("epsilon").flatMap(YAMLValue.number), rho = value("rho").flatMap(YAMLValue.number)
        let mechanism = required(
            "mechanism", value("mechanism").flatMap(YAMLValue.text).flatMap(ReleaseSpec.MechanismKind.init(rawValue:)),
            rho != nil && epsilon == nil ? .gaussian : .laplace)
        let release = ReleaseSpec.Release(
            id: required("id", value("id").flatMap(YAMLValue.text), placeholderID),
            metric: required("metric", value("metric").flatMap(YAMLValue.text), aggregate == .density ? "routes" : "workouts.count"),
            aggregate: aggregate,
            partition: required("partition", value("partition").flatMap(YAMLValue.text).flatMap(ReleaseSpec.PartitionKind.init(rawValue:)), .week),
            from: required("from", value("from").flatMap(YAMLValue.text), "1970-01-01"),
            to: required("to", value("to").flatMap(YAMLValue.text), "2999-12-31"),
            activities: value("activities").map { $0.array().compactMap(YAMLValue.text) },
            privacyUnit: required(
                "privacy_unit",
                value("privacy_unit").flatMap(YAMLValue.text).flatMap(ReleaseSpec.PrivacyUnit.init(rawValue:))
                    ?? defaultUnit, .person),
            lower: value("lower").flatMap(YAMLValue.number), upper: value("upper").flatMap(YAMLValue.number),
            resolution: value("resolution").flatMap(YAMLValue.number),
            maxPartitions: required("max_partitions", value("max_partitions").flatMap(YAMLValue.integer), 1),
            maxContributions: required("max_contributions", value("max_contributions").flatMap(YAMLValue.integer), 1),
            mechanism: mechanism, epsilon: epsilon, rho: rho,
            area: value("area").map { $0.array().compactMap(YAMLValue.number) }, cells: value("cells").flatMap(YAMLValue.integer),
            cadence: value("cadence").flatMap(YAMLValue.text).flatMap(ReleaseSpec.Cadence.init(rawValue:)),
            expected: value("expected").flatMap(YAMLValue.number))
        return (release, filled)
    }

    /// A release from a mapping that conforms to `ReleaseSchema.release`.
    static func release(_ node: Node, defaultUnit: ReleaseSpec.PrivacyUnit?) -> ReleaseSpec.Release? {
        // `key:` with no value counts as absent, as the schema walker has it.
        func value(_ key: String) -> Node? { node[key].flatMap { YAMLValue.isNull($0) ? nil : $0 } }
        func text(_ key: String) -> String? { value(key).flatMap(YAMLValue.text) }
        func number(_ key: String) -> Double? { value(key).flatMap(YAMLValue.number) }
        func integer(_ key: String) -> Int? { value(key).flatMap(YAMLValue.integer) }
        guard let id = text("id"), let metric = text("metric"),
            let aggregate = text("aggregate").flatMap(ReleaseSpec.Aggregate.init(rawValue:)),
            let partition = text("partition").flatMap(ReleaseSpec.PartitionKind.init(rawValue:)),
            let from = text("from"), let to = text("to"),
            let unit = text("privacy_unit").flatMap(ReleaseSpec.PrivacyUnit.init(rawValue:)) ?? defaultUnit,
            let maxPartitions = integer("max_partitions"), let maxContributions = integer("max_contributions"),
            let mechanism = text("mechanism").flatMap(ReleaseSpec.MechanismKind.init(rawValue:))
        else { return nil }
        return ReleaseSpec.Release(
            id: id, metric: metric, aggregate: aggregate, partition: partition, from: from, to: to,
            activities: value("activities").map { $0.array().compactMap(YAMLValue.text) },
            privacyUnit: unit, lower: number("lower"), upper: number("upper"), resolution: number("resolution"),
            maxPartitions: maxPartitions, maxContributions: maxContributions, mechanism: mechanism,
            epsilon: number("epsilon"), rho: number("rho"),
            area: value("area").map { $0.array().compactMap(YAMLValue.number) }, cells: integer("cells"),
            cadence: text("cadence").flatMap(ReleaseSpec.Cadence.init(rawValue:)), expected: number("expected"))
    }
}
