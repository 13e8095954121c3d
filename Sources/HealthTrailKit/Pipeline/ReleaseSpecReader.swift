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
    static func readFile(text: String, defaultUnit: ReleaseSpec.PrivacyUnit?,
                         walker: inout YAMLSchemaWalker) -> (items: [Item], budget: ReleaseSpec.Budget?, budgetNode: Node?)? {
        guard let root = walker.parse(text) else { return nil }
        walker.check(root, PipelineSchema.releaseFile(unitRequired: defaultUnit == nil), path: "")
        guard case .mapping = root else { return nil }
        let list = root["releases"]
        let items = list.map { self.items(of: $0, path: "releases", defaultUnit: defaultUnit, walker: &walker) } ?? []
        return (items, budget(root["budget"]), root["budget"])
    }

    /// The releases of a list node the caller has already checked against `PipelineSchema`:
    /// builds the well-formed ones and reports their check failures and repeated ids.
    static func items(of list: Node, path: String, defaultUnit: ReleaseSpec.PrivacyUnit?,
                      walker: inout YAMLSchemaWalker) -> [Item] {
        guard case .sequence(let sequence) = list else { return [] }
        let schema = PipelineSchema.release(unitRequired: defaultUnit == nil)
        var items: [Item] = []
        var firstLine: [String: Int] = [:]
        for (i, node) in sequence.enumerated() {
            // Shape problems were reported by the caller's walk. A release whose required keys
            // are readable is still checked for meaning, except on the keys with shape problems
            // (a mistyped `lower` would otherwise come back as "needs bounds").
            var scratch = YAMLSchemaWalker()
            scratch.check(node, schema, path: "")
            let badKeys = Set(scratch.problems.map { String($0.keyPath.prefix { $0 != "." && $0 != "[" }) })
            guard let release = release(node, defaultUnit: defaultUnit) else { continue }
            let itemPath = "\(path)[\(i)]"
            let mistakes = release.mistakes().filter { !badKeys.contains($0.key) }
            for (key, message) in mistakes {
                walker.report(node[key] ?? node, path: itemPath + "." + key, "release \(release.id): \(message)")
            }
            var valid = mistakes.isEmpty && badKeys.isEmpty
            if valid && release.aggregate != .density {
                do {
                    _ = try NoisePlan(release)
                } catch {
                    valid = false
                    let message = (error as? InputError)?.message ?? "noise parameters out of range: \(error)"
                    walker.report(node["mechanism"] ?? node, path: itemPath + ".mechanism", message)
                }
            }
            let idNode = node["id"] ?? node
            if let first = firstLine[release.id] {
                walker.report(idNode, path: itemPath + ".id", "release ids must be unique: \(release.id) is also at line \(first)")
            } else {
                firstLine[release.id] = YAMLValue.position(idNode).line
            }
            items.append(Item(release: release, node: node, index: i, statedUnit: node["privacy_unit"].map { !YAMLValue.isNull($0) } ?? false, valid: valid))
        }
        return items
    }

    /// `budget: {epsilon: …, rho: …}`; nil when absent or not a mapping.
    static func budget(_ node: Node?) -> ReleaseSpec.Budget? {
        guard let node, case .mapping = node else { return nil }
        return ReleaseSpec.Budget(epsilon: node["epsilon"].flatMap(YAMLValue.number), rho: node["rho"].flatMap(YAMLValue.number))
    }

    /// A release from a mapping that conforms to `PipelineSchema.release`.
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
              let mechanism = text("mechanism").flatMap(ReleaseSpec.MechanismKind.init(rawValue:)) else { return nil }
        return ReleaseSpec.Release(
            id: id, metric: metric, aggregate: aggregate, partition: partition, from: from, to: to,
            activities: value("activities").map { $0.array().compactMap(YAMLValue.text) },
            privacyUnit: unit, lower: number("lower"), upper: number("upper"), resolution: number("resolution"),
            maxPartitions: maxPartitions, maxContributions: maxContributions, mechanism: mechanism,
            epsilon: number("epsilon"), rho: number("rho"),
            area: value("area").map { $0.array().compactMap(YAMLValue.number) }, cells: integer("cells"))
    }
}
