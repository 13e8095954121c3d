import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun

/// Each run setting is declared once (`RunOptionDeclaration`), and the help of `run` and
/// `partial` and the keys of pipeline files are the declaration's: what it accepts and its
/// default are in the help, and every key of a pipeline file that sets a run setting is one a
/// declaration names. Forwarding to `partial` is OptionForwardingTests', the ranges
/// RunSettingRangesTests'.
@Suite struct RunOptionDeclarationTests {
    /// The arguments of a command, from `--experimental-dump-help`, by long name.
    static func arguments(of command: String) throws -> [String: [String: Any]] {
        let dump = try Support.runCLI([command, "--experimental-dump-help"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let arguments = try #require((json["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        var byName: [String: [String: Any]] = [:]
        for argument in arguments {
            for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                byName[name["name"] as? String ?? ""] = argument
            }
        }
        return byName
    }

    /// Runs of spaces and line breaks as one space: the help wraps lines at the terminal's width.
    static func unwrapped(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test func everyRunSettingIsInTheHelpWithWhatItAcceptsAndItsDefault() throws {
        for command in ["run", "partial"] {
            let arguments = try Self.arguments(of: command)
            let help = Self.unwrapped(try Support.runCLI([command, "--help"]).stdout)
            // The section RunSettings fills holds the declared settings and nothing else.
            let section = Set(arguments.filter { $0.value["sectionTitle"] as? String == "Run settings" }.keys)
            #expect(
                section == Set(RunOptionDeclaration.runSettings.map(\.name)),
                "\(command): \(section.symmetricDifference(RunOptionDeclaration.runSettings.map(\.name)))")
            for setting in RunOptionDeclaration.runSettings {
                let argument = try #require(arguments[setting.name], "\(command) has no \(setting.option)")
                #expect(argument["abstract"] as? String == setting.help, "\(command) \(setting.option)")
                #expect(argument["valueName"] as? String == setting.valueName ?? setting.name, "\(command) \(setting.option)")
                #expect((argument["kind"] as? String == "flag") == setting.isFlag, "\(command) \(setting.option)")
                #expect(help.contains(Self.unwrapped(setting.help)), "\(command) --help: \(setting.option)")
                if let defaultValue = setting.defaultValue { #expect(setting.help.contains("default: " + defaultValue)) }
                if let accepted = setting.acceptedText { #expect(setting.help.contains(accepted)) }
            }
        }
    }

    @Test func theHelpSaysWhatEachRangeIs() {
        #expect(RunOptionDeclaration.joinTolerance.help.hasSuffix("(0…3600 seconds; default: 15)"))
        #expect(RunOptionDeclaration.maxHR.help.contains("(100…250 bpm; default: "))
        #expect(RunOptionDeclaration.mapMinPoints.help.hasSuffix("(at least 2 points; default: 2)"))
        #expect(RunOptionDeclaration.colourScale.help.hasSuffix("(values: viridis, inferno; default: viridis)"))
        #expect(RunOptionDeclaration.strict.help == RunOptionDeclaration.strict.abstract)
    }

    /// The keys of a schema's mappings, dotted (`maps.size`), into every alternative of a value;
    /// not below `privacy`, the pipeline's own.
    static func keys(of schema: YAMLSchema, under prefix: String = "") -> Set<String> {
        switch schema {
        case .mapping(let fields):
            return fields.reduce(into: Set<String>()) { keys, field in
                let key = prefix + field.name
                keys.insert(key)
                if key != "privacy" { keys.formUnion(Self.keys(of: field.schema, under: key + ".")) }
            }
        case .oneOf(let alternatives):
            return alternatives.reduce(into: Set<String>()) { $0.formUnion(keys(of: $1, under: prefix)) }
        default:
            return []
        }
    }

    /// The schema of the key `path` (`["maps", "size"]`) in a schema of mappings.
    static func schema(at path: [String], in schema: YAMLSchema) -> YAMLSchema? {
        guard let first = path.first else { return schema }
        switch schema {
        case .mapping(let fields):
            return fields.first { $0.name == first }.flatMap { Self.schema(at: Array(path.dropFirst()), in: $0.schema) }
        case .oneOf(let alternatives):
            return alternatives.lazy.compactMap { Self.schema(at: path, in: $0) }.first
        default:
            return nil
        }
    }

    /// The words a schema admits, as a word, a list of words, or one of several alternatives.
    static func words(of schema: YAMLSchema?) -> [String] {
        switch schema {
        case .word(let words)?: return words
        case .list(let element, _)?: return Self.words(of: element)
        case .oneOf(let alternatives)?: return alternatives.flatMap { Self.words(of: $0) }
        default: return []
        }
    }

    @Test func everyKeyOfAPipelineThatSetsARunSettingIsDeclared() {
        let schema = PipelineSchema.pipeline(unitGiven: false)
        var declared: Set<String> = []
        for setting in RunOptionDeclaration.runSettings + [.jobs] {
            switch setting.pipeline {
            case nil:
                continue
            case .key(let path)?:
                // Each mapping the key is in, and the key.
                for end in path.indices { declared.insert(path[...end].joined(separator: ".")) }
                #expect(Self.schema(at: path, in: schema) != nil, "\(setting.option): no \(path.joined(separator: ".")) in pipeline files")
            case .word(let word, let path)?, .wordLeftOut(let word, let path)?:
                declared.insert(path.joined(separator: "."))
                #expect(
                    Self.words(of: Self.schema(at: path, in: schema)).contains(word),
                    "\(setting.option): \(path.joined(separator: ".")) does not take \(word)")
            }
        }
        // The keys that are the pipeline's own, not a run's setting.
        let own: Set<String> = ["version", "kind", "input", "input.path", "input.pick", "output", "outputs", "privacy"]
        let keys = Self.keys(of: schema)
        #expect(
            keys.subtracting(own).subtracting(declared).isEmpty,
            "pipeline keys neither a run setting's (RunOptionDeclaration) nor the pipeline's own: \(keys.subtracting(own).subtracting(declared).sorted())"
        )
        #expect(declared.subtracting(keys).isEmpty, "declared keys pipeline files do not have: \(declared.subtracting(keys).sorted())")
    }

    /// `--jobs` is declared like a run setting, but a cohort keeps it: how many persons run at
    /// once is not part of any person's outputs.
    @Test func jobsIsDeclaredOnceAndNotPassedOn() throws {
        let argument = try #require(try Self.arguments(of: "run")["jobs"])
        #expect(argument["abstract"] as? String == RunOptionDeclaration.jobs.help)
        #expect(RunOptionDeclaration.jobs.help.contains("(1…256 archives at once; default: "))
        #expect(!RunOptionDeclaration.runSettings.contains(.jobs))
        #expect(RunOptionDeclaration.forwardedArguments(["healthtrail", "--jobs", "3", "--strict"]) == ["--strict"])
        let refused = try Support.runCLI(["run", "--pipeline", "p.yaml", "--jobs", "0"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--jobs must be 1…256 archives at once"))
    }

    /// The ranges the shipped pipeline files state in their comments (`size: 800  # pixels
    /// across (100…10000)`) are the declared ones: each comment's range belongs to the one
    /// declared key its line names.
    @Test func theShippedPipelinesStateTheDeclaredRanges() throws {
        let declarations = (RunOptionDeclaration.runSettings + [.jobs]).filter { $0.integers != nil || $0.numbers != nil }
        let range = try Regex(#"\((\d+)…(\d+)"#)
        var checked = 0
        for name in ["nightly.yaml", "cohort.yaml", "releases.yaml"] {
            let url = Support.packageRoot.appendingPathComponent("pipelines/" + name)
            for (number, line) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let match = line.firstMatch(of: range) else { continue }
                let named = declarations.filter { setting in setting.pipelineName.map { line.contains($0 + ":") } ?? false }
                if named.isEmpty { continue }   // a range of dates or weeks, not of a setting
                #expect(named.count == 1, "\(name):\(number + 1) names \(named.map(\.option))")
                let stated = (Double(match.output[1].substring!)!, Double(match.output[2].substring!)!)
                let declared =
                    named[0].integers.map { (Double($0.lowerBound), Double($0.upperBound)) }
                    ?? named[0].numbers.map { ($0.lowerBound, $0.upperBound) }!
                #expect(stated == declared, "\(name):\(number + 1) states \(stated) for \(named[0].option), declared \(declared)")
                checked += 1
            }
        }
        #expect(checked >= 4, "only \(checked) stated ranges found")
    }
}
