/// The shapes of release files and of a pipeline's `privacy.budget` and `privacy.releases`, as
/// `YAMLSchema`s: the one place that lists their keys.
enum ReleaseSchema {
    typealias Field = YAMLSchema.Field

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
