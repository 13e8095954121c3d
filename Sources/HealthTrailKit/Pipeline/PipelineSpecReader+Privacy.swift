import Foundation
import HealthTrailPrivacy
import Yams

/// The `privacy` section: unit, key file, budget and releases, and how they fit the pipeline.
extension PipelineSpecReader {
    /// `privacy`: unit, key file, budget, releases, and how they fit the pipeline and its outputs.
    mutating func readPrivacy(
        _ root: Node, kind: PipelineSpec.Kind?, outputsEntry: (key: Node, value: Node)?,
        into spec: inout PipelineSpec
    ) {
        let privacyEntry = entry(root, "privacy")
        let privacy = privacyEntry?.value
        let unitEntry = entry(privacy, "unit")
        let unit = unitEntry.flatMap { YAMLValue.text($0.value) }.flatMap(ReleaseSpec.PrivacyUnit.init(rawValue:))
        if kind == .person, unit == .person, let unitEntry {
            walker.report(unitEntry.value, path: "privacy.unit", Self.personUnitInPersonPipeline)
        }
        spec.privacyUnit = unit

        let keyEntry = entry(privacy, "key_file")
        switch (kind, keyEntry) {
        case (.cohort, nil):
            walker.report(
                privacyEntry?.key ?? root, path: "privacy.key_file",
                "required key missing (a cohort pseudonymises each person with HMAC-SHA256 under this key)")
        case (.person, let keyEntry?):
            walker.report(
                keyEntry.key, path: "privacy.key_file",
                "a person pipeline has no person ids to pseudonymise: key_file is for cohort pipelines")
        case (_, let keyEntry?):
            spec.keyFile = path(keyEntry.value, at: "privacy.key_file")
        default:
            break
        }

        if let subjectEntry = entry(privacy, "subject") { spec.subject = YAMLValue.text(subjectEntry.value) }
        if let personsEntry = entry(privacy, "persons") {
            if kind == .person {
                walker.report(
                    personsEntry.key, path: "privacy.persons",
                    "a person pipeline holds one person: persons is for cohort pipelines")
            } else if YAMLValue.text(personsEntry.value)?.trimmingCharacters(in: .whitespaces) == PersonsSource.eachArchiveValue {
                spec.persons = .eachArchive
            } else {
                spec.persons = path(personsEntry.value, at: "privacy.persons").map(PersonsSource.file)
            }
        }
        if let folderEntry = entry(privacy, "budget_dir") { spec.budgetDirectory = path(folderEntry.value, at: "privacy.budget_dir") }

        let budgetEntry = entry(privacy, "budget")
        if let budgetEntry, case .mapping(let budget) = budgetEntry.value,
            budget.keys.filter({ ["epsilon", "rho"].contains($0.scalar?.string ?? "") }).count != 1
        {
            walker.report(budgetEntry.value, path: "privacy.budget", "give exactly one of epsilon or rho")
        }
        ReleaseSpecReader.checkBudget(budgetEntry?.value, path: "privacy.budget", walker: &walker)
        let pipelineBudget = budgetEntry.flatMap { ReleaseSpecReader.budget($0.value) }

        let releasesEntry = entry(privacy, "releases")
        var releases: [ReadRelease] = []
        var fileBudget: (budget: ReleaseSpec.Budget, node: Node)?
        if let releasesEntry {
            if case .sequence = releasesEntry.value {
                releases = ReleaseSpecReader.items(
                    of: releasesEntry.value, path: "privacy.releases", defaultUnit: unit,
                    walker: &walker
                ).map { ($0, false) }
            } else if let read = readReleaseFile(releasesEntry.value, defaultUnit: unit) {
                releases = read.items.map { ($0, true) }
                if let budget = read.budget, let node = read.budgetNode { fileBudget = (budget, node) }
            }
        }
        checkUnits(releases, pipelineUnit: unit, kind: kind)

        if spec.outputs.contains(.dp) && releasesEntry == nil {
            if let outputsEntry {
                walker.report(outputsEntry.value, path: "outputs", "dp needs privacy.releases: add them, or leave dp out")
            } else {
                walker.report(
                    root, path: "outputs",
                    "the default outputs (csv, geojson, svg, report, dp) include dp, which needs privacy.releases: add them, or list outputs without dp"
                )
            }
        }
        // The pipeline's budget replaces the file's, but not the δ the file states guarantees at.
        var budget = pipelineBudget ?? fileBudget?.budget
        if budget?.delta == nil { budget?.delta = fileBudget?.budget.delta }
        if let releasesEntry, spec.outputs.contains(.dp), budget == nil {
            walker.report(
                releasesEntry.key, path: "privacy.budget",
                "dp needs a budget: privacy.budget, or budget in the release file")
        }
        if let budget, !releases.isEmpty {
            let inFile = pipelineBudget == nil
            checkCost(releases, budget: budget, at: inFile ? fileBudget?.node : budgetEntry?.value, inFile: inFile)
        }
        if releasesEntry != nil {
            spec.releases = ReleaseSpec(releases: releases.map(\.item.release), budget: budget)
        }
        // Two archives of one person would be two persons, each with the whole budget: a cohort
        // that publishes dp says which archives are whose, or that each archive is one person.
        if kind == .cohort, spec.outputs.contains(.dp), releasesEntry != nil, entry(privacy, "persons") == nil {
            walker.report(
                privacyEntry?.key ?? root, path: "privacy.persons",
                "required for a cohort that publishes dp: add `persons: each archive` (each archive is one person) "
                    + "or `persons: <CSV of archive,person>`")
        }
    }

    static let personUnitInPersonPipeline =
        "a person pipeline cannot use unit person: its archive holds one person, "
        + "so protecting the whole person leaves nothing but noise (use day or workout)"

    /// The release file `privacy.releases` names: its problems carry its name and lines.
    private mutating func readReleaseFile(_ node: Node, defaultUnit: ReleaseSpec.PrivacyUnit?)
        -> (items: [ReleaseSpecReader.Item], budget: ReleaseSpec.Budget?, budgetNode: Node?)?
    {
        guard let written = YAMLValue.text(node), let absolute = path(node, at: "privacy.releases") else { return nil }
        // Shown as the user would reach it from where they ran healthtrail: beside the pipeline file.
        let shownFolder = (shownFile as NSString).deletingLastPathComponent
        let shown =
            written.hasPrefix("/") || written.hasPrefix("~")
            ? absolute
            : shownFolder.isEmpty ? written : shownFolder + "/" + written
        // A missing file is named by the path looked at, and how a relative one was resolved.
        let resolved =
            written.hasPrefix("/") || written.hasPrefix("~")
            ? absolute
            : "\(absolute) (\(written) beside the pipeline file)"
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder), !isFolder.boolValue else {
            walker.report(node, path: "privacy.releases", "release file not found: \(resolved)")
            return nil
        }
        guard let text = try? String(contentsOfFile: absolute, encoding: .utf8) else {
            walker.report(node, path: "privacy.releases", "cannot read the release file \(resolved)")
            return nil
        }
        var fileWalker = YAMLSchemaWalker(file: shown)
        let read = ReleaseSpecReader.readFile(text: text, defaultUnit: defaultUnit, walker: &fileWalker)
        releaseFileWalker = fileWalker
        return read
    }

    /// A release that states a unit must agree with the pipeline's; a person pipeline cannot
    /// release per person.
    private mutating func checkUnits(
        _ releases: [ReadRelease], pipelineUnit: ReleaseSpec.PrivacyUnit?,
        kind: PipelineSpec.Kind?
    ) {
        for (item, inFile) in releases where item.statedUnit {
            let at = item.node["privacy_unit"] ?? item.node
            let id = item.release.id, stated = item.release.privacyUnit
            if let pipelineUnit, stated != pipelineUnit {
                report(
                    inFile: inFile, at, path: releasePath(item, inFile) + ".privacy_unit",
                    "release \(id) states privacy_unit \(stated.rawValue) but privacy.unit is \(pipelineUnit.rawValue): "
                        + "leave it out, or make them agree")
            } else if kind == .person, stated == .person {
                report(
                    inFile: inFile, at, path: releasePath(item, inFile) + ".privacy_unit",
                    "release \(id): " + Self.personUnitInPersonPipeline)
            }
        }
    }

    /// What the releases spend must fit the budget, for each privacy unit on its own, and a
    /// pure ε budget cannot be charged for Gaussian (zCDP) releases: the ledger would refuse
    /// them at run time.
    private mutating func checkCost(_ releases: [ReadRelease], budget: ReleaseSpec.Budget, at node: Node?, inFile: Bool) {
        var epsilon: [ReleaseSpec.PrivacyUnit: Double] = [:], rho: [ReleaseSpec.PrivacyUnit: Double] = [:]
        var rdp: [ReleaseSpec.PrivacyUnit: RDPCurve] = [:]
        let renyi = budget.accountant == .renyi
        // A release with problems has no trustworthy cost (an ε of 50 is already reported).
        for (item, itemInFile) in releases where item.valid {
            let r = item.release
            let cost = ReleasePlan.unitCost(of: r)
            for unit in ReleasePlan.units(inside: r.privacyUnit) {
                epsilon[unit, default: 0] += cost.epsilon ?? 0
                rho[unit, default: 0] += cost.rho
                rdp[unit, default: .zero] = rdp[unit, default: .zero].adding(cost.rdp)
            }
            if r.mechanism == .gaussian && budget.epsilon != nil && !renyi {
                report(
                    inFile: itemInFile, item.node["mechanism"] ?? item.node, path: releasePath(item, itemInFile) + ".mechanism",
                    "release \(r.id): a gaussian release has no pure epsilon cost, so an epsilon budget cannot pay for it (budget in rho)")
            }
        }
        guard let node else { return }
        let path = inFile ? "budget" : "privacy.budget"
        // A hair of tolerance: 0.1 + 0.2 must fit a budget of 0.3.
        for unit in [ReleaseSpec.PrivacyUnit.day, .workout, .person] {
            if renyi, let limit = budget.epsilon, let curve = rdp[unit] {
                let delta = budget.delta ?? 1e-6
                let spent = RenyiAccountant.epsilon(curve: curve, rho: rho[unit] ?? 0, delta: delta)
                if RenyiAccountant.exceeds(spent, limit: limit) {
                    report(
                        inFile: inFile, node, path: path,
                        "these releases spend (epsilon, delta) = (\(Self.format(spent)), \(delta)) for a \(unit.rawValue) "
                            + "by Rényi accounting, more than the whole budget epsilon \(Self.format(limit))")
                }
            } else if let limit = budget.epsilon, let spent = epsilon[unit], spent > limit * (1 + 1e-9) {
                report(
                    inFile: inFile, node, path: path,
                    "these releases spend epsilon \(Self.format(spent)) for a \(unit.rawValue), more than the whole budget \(Self.format(limit))")
            }
            if let limit = budget.rho, let spent = rho[unit], spent > limit * (1 + 1e-9) {
                report(
                    inFile: inFile, node, path: path,
                    "these releases spend rho \(Self.format(spent)) for a \(unit.rawValue) (a laplace release costs epsilon²/2), "
                        + "more than the whole budget \(Self.format(limit))")
            }
        }
    }

    /// `privacy.releases[2]` inline, `releases[2]` in the release file.
    private func releasePath(_ item: ReleaseSpecReader.Item, _ inFile: Bool) -> String {
        (inFile ? "releases" : "privacy.releases") + "[\(item.index)]"
    }

    private mutating func report(inFile: Bool, _ node: Node, path: String, _ message: String) {
        if inFile { releaseFileWalker?.report(node, path: path, message) } else { walker.report(node, path: path, message) }
    }

    static func format(_ v: Double) -> String {
        let rounded = (v * 1e6).rounded() / 1e6
        return YAMLSchema.Bounds.format(rounded)
    }
}
