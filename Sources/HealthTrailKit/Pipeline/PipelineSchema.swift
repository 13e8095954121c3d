/// The shapes of pipeline files (version 1) and release files, as `YAMLSchema`s.
///
/// This is the one place that lists the keys: the walker reports unknown ones against it, and
/// the readers only read what it admits.
enum PipelineSchema {
    typealias Field = YAMLSchema.Field

    /// A pipeline file. `unitGiven`: whether `privacy.unit` is set, in which case releases may
    /// leave their `privacy_unit` out (the pipeline's unit fills it).
    static func pipeline(unitGiven: Bool) -> YAMLSchema {
        .mapping([
            Field(
                name: "version", schema: .integer(1...1, unit: ""), required: true,
                whyRequired: "version: 1 is the format this healthtrail reads"),
            Field(name: "kind", schema: .word(["person", "cohort"]), required: true),
            Field(
                name: "input",
                schema: .mapping([
                    Field(name: "path", schema: .text(nonEmpty: true), required: true),
                    Field(name: "pick", schema: .word(["newest", "all"])),
                ]), required: true),
            Field(name: "output", schema: .text(nonEmpty: true), required: true),
            Field(name: "outputs", schema: .list(of: .word(PipelineSpec.Output.allCases.map(\.rawValue)), count: 1...Int.max)),
            field(.format, .list(of: .word(TableFormats.all.map(\.name)), count: 1...Int.max)),
            field(.strict),
            field(.joinTolerance),
            Field(
                name: "zones",
                schema: .oneOf([
                    .word(["standard", birthDate]),
                    .mapping([field(.maxHR, required: true)]),
                ])),
            field(.sourcePriority, .list(of: .text(nonEmpty: true), count: 1...Int.max)),
            Field(
                name: "maps",
                schema: .mapping([
                    field(.maps),
                    field(.svgSize),
                    field(.colourScale),
                    field(.mapArea, .list(of: .number(.finite), count: 4...4)),
                    field(.mapMinPoints),
                ])),
            field(.geojsonTimes),
            field(.splitUnit),
            field(.ecgSamples),
            field(.jobs),
            Field(
                name: "privacy",
                schema: .mapping([
                    Field(name: "unit", schema: .word(["day", "workout", "person"])),
                    Field(name: "key_file", schema: .text(nonEmpty: true)),
                    Field(name: "subject", schema: .text(nonEmpty: true)),
                    Field(name: "persons", schema: .text(nonEmpty: true)),
                    Field(name: "budget_dir", schema: .text(nonEmpty: true)),
                    Field(name: "budget", schema: budget),
                    Field(name: "releases", schema: .oneOf([.text(nonEmpty: true), releaseList(unitRequired: !unitGiven)])),
                ])),
        ])
    }

    /// The key of a run setting (`RunOptionDeclaration`): its name, and its value's schema from
    /// what the declaration accepts unless `schema` spells it out.
    static func field(_ setting: RunOptionDeclaration, _ schema: YAMLSchema? = nil, required: Bool = false) -> Field {
        guard let name = setting.pipelineName, let schema = schema ?? setting.pipelineSchema else {
            preconditionFailure("\(setting.option) has no pipeline key of its own, or no schema for its value")
        }
        return Field(name: name, schema: schema, required: required)
    }

    /// `zones: from_birth_date`, `--max-hr-from-birth-date`.
    static var birthDate: String {
        guard case .word(let word, _)? = RunOptionDeclaration.maxHRFromBirthDate.pipeline else {
            preconditionFailure("--max-hr-from-birth-date is a word of zones")
        }
        return word
    }

    /// A release file (`pipelines/releases.yaml`): a budget and the releases.
    static func releaseFile(unitRequired: Bool) -> YAMLSchema {
        .mapping([
            Field(name: "budget", schema: budget),
            Field(name: "releases", schema: releaseList(unitRequired: unitRequired), required: true),
        ])
    }

    /// `{epsilon: …}` and/or `{rho: …}`: the total the budget ledger enforces across runs;
    /// `delta`: the δ at which ρ-zCDP releases state their (ε, δ) (default 10⁻⁶);
    /// `accountant: renyi`: `epsilon` and `delta` are an (ε, δ) total, by Rényi accounting.
    static let budget = YAMLSchema.mapping([
        Field(name: "epsilon", schema: .number(.init(lower: 0, lowerOpen: true, upper: 100))),
        Field(name: "rho", schema: .number(.init(lower: 0, lowerOpen: true, upper: 100))),
        Field(name: "delta", schema: .number(.init(lower: 0, lowerOpen: true, upper: 0.01))),
        Field(name: "accountant", schema: .word(["renyi"])),
    ])

    static func releaseList(unitRequired: Bool) -> YAMLSchema {
        .list(of: release(unitRequired: unitRequired), count: 1...Int.max)
    }

    /// One release, the keys of `ReleaseSpec.Release`. Ranges that depend on other keys
    /// (bounds, ε, dates) are `ReleaseSpec.Release`'s own check, reported by the reader.
    static func release(unitRequired: Bool) -> YAMLSchema {
        .mapping([
            Field(name: "id", schema: .text(nonEmpty: true), required: true),
            Field(name: "metric", schema: .text(nonEmpty: true), required: true),
            Field(name: "aggregate", schema: .word(["count", "sum", "mean", "density"]), required: true),
            Field(name: "partition", schema: .word(["week", "month", "day", "activity_week", "activity_month"]), required: true),
            Field(name: "from", schema: .text(nonEmpty: true), required: true),
            Field(name: "to", schema: .text(nonEmpty: true), required: true),
            Field(name: "activities", schema: .list(of: .text(nonEmpty: true), count: 1...Int.max)),
            Field(
                name: "privacy_unit", schema: .word(["day", "workout", "person"]), required: unitRequired,
                whyRequired: "no privacy.unit is set to fill it in"),
            Field(name: "lower", schema: .number(.finite)),
            Field(name: "upper", schema: .number(.finite)),
            Field(name: "resolution", schema: .number(.finite)),
            Field(name: "max_partitions", schema: .integer(Int.min...Int.max, unit: ""), required: true),
            Field(name: "max_contributions", schema: .integer(Int.min...Int.max, unit: ""), required: true),
            Field(name: "mechanism", schema: .word(["laplace", "gaussian"]), required: true),
            Field(name: "epsilon", schema: .number(.finite)),
            Field(name: "rho", schema: .number(.finite)),
            Field(name: "area", schema: .list(of: .number(.finite), count: 0...Int.max)),
            Field(name: "cells", schema: .integer(Int.min...Int.max, unit: "")),
            Field(name: "cadence", schema: .word(["once", "week", "month", "year"])),
            Field(name: "expected", schema: .number(.finite)),
        ])
    }
}
