/// One run setting, declared once: its command-line name, where a pipeline file sets it, its
/// help, its default and the values it accepts.
///
/// Everything else is made from the declaration: the options of `healthtrail run` and
/// `healthtrail partial` with their help, the keys and ranges of pipeline files
/// (`PipelineSchema`), the range checks of the command line, and the arguments a cohort passes
/// on to each person's `partial` (`forwardedArguments(_:alsoWithValue:)`). The declarations are
/// listed in `runSettings`.
package struct RunOptionDeclaration: Sendable, Equatable {
    /// The values an option accepts, beyond its type.
    package enum Accepted: Sendable, Equatable {
        /// Whole numbers in the range, counted in `unit` (empty for a plain number).
        case integers(ClosedRange<Int>, unit: String)
        /// Numbers in the range, whole or not, in `unit`.
        case numbers(ClosedRange<Double>, unit: String)
        /// One of these words.
        case word([String])
        /// Any of these words, several separated by commas.
        case words([String])
    }

    /// Where a pipeline file sets an option.
    package enum PipelineSetting: Sendable, Equatable {
        /// A key, after the keys of the mappings it is in: `["maps", "size"]` is `maps: {size: …}`.
        case key([String])
        /// A word given to a key: `--max-hr-from-birth-date` is `zones: from_birth_date`.
        case word(String, key: [String])
        /// A word left out of a key's list: `--no-svg` is `outputs` without `svg`.
        case wordLeftOut(String, key: [String])
    }

    /// The long name on the command line, without its dashes: `join-tolerance`.
    package let name: String
    /// Where a pipeline file sets it; nil for an option of the command line only.
    package let pipeline: PipelineSetting?
    /// What the option does, in a sentence or two: the start of its help.
    package let abstract: String
    /// The name of its value in the help (`seconds`); nil for a flag, which takes no value.
    package let valueName: String?
    /// What applies when neither the command line nor the pipeline file sets it, in words (`15`,
    /// `64 GiB`); nil for a flag, which is off unless given.
    package let defaultValue: String?
    /// The values it accepts; nil when its type, or its abstract, says all there is.
    package let accepted: Accepted?

    /// Declares a run setting, which `runSettings` must list.
    package init(
        name: String, pipeline: PipelineSetting?, abstract: String, valueName: String? = nil,
        defaultValue: String? = nil, accepted: Accepted? = nil
    ) {
        self.name = name
        self.pipeline = pipeline
        self.abstract = abstract
        self.valueName = valueName
        self.defaultValue = defaultValue
        self.accepted = accepted
    }

    /// `--join-tolerance`.
    package var option: String { "--" + name }

    /// Whether the option is a flag (`--strict`) rather than one that takes a value.
    package var isFlag: Bool { valueName == nil }

    /// The whole help of the option: the abstract, then what it accepts and its default in
    /// parentheses, as the argument parser shows the values and default of other options:
    /// `How far … a bpm. (0…3600 seconds; default: 15)`.
    package var help: String {
        let notes = [acceptedText, defaultValue.map { "default: " + $0 }].compactMap { $0 }
        return notes.isEmpty ? abstract : abstract + " (" + notes.joined(separator: "; ") + ")"
    }

    /// What the option accepts, as the help says it: `0…3600 seconds`, `at least 2 points`,
    /// `values: viridis, inferno`.
    package var acceptedText: String? {
        switch accepted {
        case nil: return nil
        case .integers(let range, let unit):
            let suffix = unit.isEmpty ? "" : " " + unit
            if range.upperBound == Int.max { return "at least \(range.lowerBound)" + suffix }
            return "\(range.lowerBound)…\(range.upperBound)" + suffix
        case .numbers(let range, let unit):
            let suffix = unit.isEmpty ? "" : " " + unit
            switch (range.lowerBound.isFinite, range.upperBound.isFinite) {
            case (false, false): return "a finite number"
            case (true, false): return "≥ " + Self.numberText(range.lowerBound) + suffix
            case (false, true): return "≤ " + Self.numberText(range.upperBound) + suffix
            case (true, true): return Self.numberText(range.lowerBound) + "…" + Self.numberText(range.upperBound) + suffix
            }
        case .word(let words), .words(let words):
            return "values: " + words.joined(separator: ", ")
        }
    }

    /// The whole numbers the option accepts; nil unless it takes them.
    package var integers: ClosedRange<Int>? {
        if case .integers(let range, _)? = accepted { return range }
        return nil
    }

    /// The numbers the option accepts; nil unless it takes them.
    package var numbers: ClosedRange<Double>? {
        if case .numbers(let range, _)? = accepted { return range }
        return nil
    }

    /// The words the option accepts, one or several; nil unless it takes words.
    package var words: [String]? {
        switch accepted {
        case .word(let words)?, .words(let words)?: return words
        default: return nil
        }
    }

    /// The unit of the option's numbers (`seconds`); empty when it has none.
    package var unit: String {
        switch accepted {
        case .integers(_, let unit)?, .numbers(_, let unit)?: return unit
        default: return ""
        }
    }

    /// The key that sets the option in a pipeline file, dotted (`maps.size`), or that takes its
    /// word (`zones`, `outputs`); nil for an option of the command line only.
    package var pipelineKey: String? {
        switch pipeline {
        case nil: return nil
        case .key(let path)?, .word(_, let path)?, .wordLeftOut(_, let path)?: return path.joined(separator: ".")
        }
    }

    /// The name of the option's own key in its pipeline mapping (`size` of `maps.size`); nil when
    /// a pipeline sets it by a word rather than by a key of its own.
    package var pipelineName: String? {
        if case .key(let path)? = pipeline { return path.last }
        return nil
    }

    /// A number as the help and the pipeline checks write it: `15` for a whole number, `0.5`
    /// otherwise.
    package static func numberText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension RunOptionDeclaration {
    /// The run settings given on a command line (`arguments`, the program first), each with its
    /// value (`--svg-size 900` or `--svg-size=900`), in their order: what a cohort passes on to
    /// each person's `partial`. `valued` names options that are not run settings but are passed
    /// on too, with their value (`--log-level`). Nothing after `--` is an option.
    package static func forwardedArguments(_ arguments: [String], alsoWithValue valued: [String] = []) -> [String] {
        var takesValue: [String: Bool] = [:]
        for setting in runSettings { takesValue[setting.option] = !setting.isFlag }
        for option in valued { takesValue[option] = true }
        var result: [String] = [], i = 1
        while i < arguments.count {
            let argument = arguments[i]
            if argument == "--" { break }
            if let valueFollows = takesValue[argument] {
                if !valueFollows {
                    result.append(argument)
                } else if i + 1 < arguments.count {
                    result += [argument, arguments[i + 1]]
                    i += 1
                }
            } else if let equals = argument.firstIndex(of: "="), takesValue[String(argument[..<equals])] == true {
                result.append(argument)
            }
            i += 1
        }
        return result
    }
}
