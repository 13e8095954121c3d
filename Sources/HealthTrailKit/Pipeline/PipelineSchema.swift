import HealthTrailRun

/// The shape of pipeline files (version 1), as a `YAMLSchema`; its `privacy` key holds
/// `ReleaseSchema`'s budget and releases.
///
/// With `ReleaseSchema`, the one place that lists the keys: the walker reports unknown ones
/// against it, and the readers only read what it admits.
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
                    Field(name: "budget", schema: ReleaseSchema.budget),
                    Field(name: "releases", schema: .oneOf([.text(nonEmpty: true), ReleaseSchema.releaseList(unitRequired: !unitGiven)])),
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
}

extension RunOptionDeclaration {
    /// What a pipeline file's value of the option must look like, from what it accepts: nil when
    /// that says too little (text lists, areas), for the schema to spell out.
    var pipelineSchema: YAMLSchema? {
        switch accepted {
        case nil: return isFlag ? .bool : nil
        case .integers(let range, let unit)?: return .integer(range, unit: unit)
        case .numbers(let range, let unit)?:
            return .number(YAMLSchema.Bounds(lower: range.lowerBound, upper: range.upperBound, unit: unit))
        case .word(let words)?: return .word(words)
        case .words(let words)?: return .list(of: .word(words), count: 1...Int.max)
        }
    }
}
