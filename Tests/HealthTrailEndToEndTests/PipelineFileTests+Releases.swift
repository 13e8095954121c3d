import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit

/// `privacy.releases` named by a relative path, and releases with several mistakes at once.
extension PipelineFileTests {
    @Test func aRelativeReleaseFileIsFoundBesideThePipelineFromAnyFolder() throws {
        let dir = Support.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        let releases = "budget: {epsilon: 1}\nreleases:\n" + Self.release("a").map { String($0.dropFirst(2)) }.joined(separator: "\n") + "\n"
        try releases.write(toFile: dir + "/sub/r.yaml", atomically: true, encoding: .utf8)
        try ((Self.base + ["privacy:", "  releases: r.yaml"]).joined(separator: "\n") + "\n")
            .write(toFile: dir + "/sub/pipeline.yaml", atomically: true, encoding: .utf8)
        // Run from the pipeline's parent folder: r.yaml is beside the pipeline, not here.
        let ok = try Support.runProgram("/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" validate sub/pipeline.yaml", "sh", dir, Support.binary])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasPrefix("sub/pipeline.yaml: ok") && ok.stdout.contains("1 release"))
        // A copy in the working folder does not stand in for a missing one beside the pipeline.
        try FileManager.default.moveItem(atPath: dir + "/sub/r.yaml", toPath: dir + "/r.yaml")
        let missing = try Support.runProgram("/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" validate sub/pipeline.yaml", "sh", dir, Support.binary])
        #expect(missing.status == 2)
        #expect(
            missing.stderr == "sub/pipeline.yaml:8:13: privacy.releases: release file not found: \(dir)/sub/r.yaml "
                + "(r.yaml beside the pipeline file)\n")
    }

    @Test func oneMistakeInAReleaseDoesNotHideAnother() throws {
        // `to` missing, and epsilon out of range: both reported.
        var noEnd = Self.release("a")
        noEnd.removeAll { $0.hasPrefix("      to:") }
        noEnd[noEnd.firstIndex(of: "      epsilon: 0.5")!] = "      epsilon: 50"
        let both = try Self.problems(Self.base + ["privacy:", "  releases:"] + noEnd)
        #expect(both.map(\.keyPath) == ["privacy.releases[0].to", "privacy.releases[0].epsilon"], "\(both)")
        #expect(both.last?.message == "release a: laplace needs 0 < epsilon ≤ 10")

        // An unreadable mechanism, a bad id and an impossible date order: each its own line.
        var three = Self.release("b c")
        three[three.firstIndex(of: "      mechanism: laplace")!] = "      mechanism: exponential"
        three[three.firstIndex(of: "      from: 2023-01-02")!] = "      from: 2023-05-02"
        let found = try Self.problems(Self.base + ["privacy:", "  releases:"] + three)
        #expect(
            Set(found.map(\.keyPath)) == ["privacy.releases[0].mechanism", "privacy.releases[0].id", "privacy.releases[0].to"],
            "\(found)")

        // Noise the sampler cannot draw is reported beside a mistake elsewhere in the release.
        var gaussian = Self.release("g!")
        gaussian[gaussian.firstIndex(of: "      mechanism: laplace")!] = "      mechanism: gaussian"
        gaussian[gaussian.firstIndex(of: "      epsilon: 0.5")!] = "      rho: 0.1"
        let noise = try Self.problems(Self.base + ["privacy:", "  budget: {rho: 1}", "  releases:"] + gaussian)
        #expect(noise.map(\.keyPath) == ["privacy.releases[0].id", "privacy.releases[0].mechanism"], "\(noise)")
        #expect(noise.last?.message.contains("noise parameters out of range") == true)
    }
}
