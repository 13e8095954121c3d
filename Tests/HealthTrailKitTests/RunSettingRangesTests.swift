import Foundation
import Testing
@testable import HealthTrailKit

/// The command line and pipeline files accept the same numbers for each run setting: both
/// edges of `RunSettingRanges` pass both, and one step past an edge fails both.
@Suite struct RunSettingRangesTests {
    /// (command-line option, pipeline lines with the value as `X`, lowest, highest).
    static let settings: [(option: String, yaml: [String], lowest: Int, highest: Int?)] = [
        ("--join-tolerance", ["join_tolerance_s: X"], RunSettingRanges.joinToleranceSeconds.lowerBound,
         RunSettingRanges.joinToleranceSeconds.upperBound),
        ("--max-hr", ["zones:", "  max_hr: X"], Int(RunSettingRanges.maximumHeartRate.lowerBound),
         Int(RunSettingRanges.maximumHeartRate.upperBound)),
        ("--svg-size", ["maps:", "  size: X"], RunSettingRanges.svgSize.lowerBound, RunSettingRanges.svgSize.upperBound),
        ("--map-min-points", ["maps:", "  min_points: X"], RunSettingRanges.mapMinimumPoints.lowerBound, nil),
    ]

    @Test func theCommandLineAndPipelinesAgreeOnEveryRange() throws {
        let dir = Support.temporaryDirectory()
        for setting in Self.settings {
            let accepted = [setting.lowest] + (setting.highest.map { [$0] } ?? [])
            let refused = [setting.lowest - 1] + (setting.highest.map { [$0 + 1] } ?? [])
            for (value, valid) in accepted.map({ ($0, true) }) + refused.map({ ($0, false) }) {
                // The command line: a valid value gets past the options to the missing archive (1).
                let cli = try Support.runCLI(["run", dir + "/missing.zip", "--out", dir + "/out", setting.option, "\(value)"])
                #expect(cli.status == (valid ? 1 : 2), "\(setting.option) \(value): \(cli.stderr)")
                let lines = PipelineFileTests.base + setting.yaml.map { $0.replacingOccurrences(of: "X", with: "\(value)") }
                let pipeline = try PipelineFileTests.write(lines, name: "ranges-\(setting.option)-\(value)")
                let check = try Support.runCLI(["validate", pipeline])
                #expect(check.status == (valid ? 0 : 2), "\(setting.yaml) \(value): \(check.stdout) \(check.stderr)")
            }
        }
    }
}
