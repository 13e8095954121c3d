import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun

/// The command line and pipeline files accept the same numbers for each run setting: both
/// edges of every range a `RunOptionDeclaration` gives pass both, and one step past an edge
/// fails both (the command line alone for a setting pipeline files do not have).
@Suite struct RunSettingRangesTests {
    /// Every run setting that takes numbers in a range: (setting, lowest, highest; nil when
    /// unbounded above).
    static var settings: [(setting: RunOptionDeclaration, lowest: Int, highest: Int?)] {
        RunOptionDeclaration.runSettings.compactMap { setting in
            if let range = setting.integers {
                return (setting, range.lowerBound, range.upperBound == Int.max ? nil : range.upperBound)
            }
            if let range = setting.numbers { return (setting, Int(range.lowerBound), Int(range.upperBound)) }
            return nil
        }
    }

    /// The lines of a pipeline file that give `key` (`maps.size`) `value`.
    static func yaml(_ key: [String], _ value: Int) -> [String] {
        key.enumerated().map { depth, name in
            String(repeating: "  ", count: depth) + name + ":" + (depth == key.count - 1 ? " \(value)" : "")
        }
    }

    @Test func theCommandLineAndPipelinesAgreeOnEveryRange() throws {
        #expect(
            Set(Self.settings.map(\.setting.name)) == [
                "join-tolerance", "max-hr", "svg-size", "map-min-points",
                "max-expansion-ratio",
            ])
        let dir = Support.temporaryDirectory()
        for (setting, lowest, highest) in Self.settings {
            let accepted = [lowest] + (highest.map { [$0] } ?? [])
            let refused = [lowest - 1] + (highest.map { [$0 + 1] } ?? [])
            for (value, valid) in accepted.map({ ($0, true) }) + refused.map({ ($0, false) }) {
                // The command line: a valid value gets past the options to the missing archive (1).
                let cli = try Support.runCLI(["run", dir + "/missing.zip", "--out", dir + "/out", setting.option, "\(value)"])
                #expect(cli.status == (valid ? 1 : 2), "\(setting.option) \(value): \(cli.stderr)")
                guard case .key(let key)? = setting.pipeline else { continue }
                let lines = PipelineFileTests.base + Self.yaml(key, value)
                let pipeline = try PipelineFileTests.write(lines, name: "ranges-\(setting.name)-\(value)")
                let check = try Support.runCLI(["validate", pipeline])
                #expect(check.status == (valid ? 0 : 2), "\(key) \(value): \(check.stdout) \(check.stderr)")
            }
        }
    }
}
