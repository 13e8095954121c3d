import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailRun
@testable import HealthTrailSynth

/// Memory stays flat because long series go to disk as sorted runs (cumulative samples, sleep
/// samples, the heart rate of workout windows) and route tracks wait for the maps in a file.
/// A run that sends every sorted run through the disk must write what a run in memory writes,
/// and leave no spill file behind.
@Suite struct SpillTests {
    @Test func runsThroughTheDiskWriteTheSameOutputsAsInMemory() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 12, seed: 21))

        var inMemory = RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/memory")
        inMemory.spillRunLength = 1 << 30
        let a = try ExportRun.run(inMemory)
        var onDisk = RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/disk")
        onDisk.spillRunLength = 37   // hundreds of runs per series
        let b = try ExportRun.run(onDisk)

        #expect(a.counts.heartRate > 37 * 10 && (b.outputs["sleep_samples.csv"] ?? 0) > 37)
        let fm = FileManager.default
        let files = try #require(fm.subpaths(atPath: dir + "/memory")).filter {
            $0.hasSuffix(".csv") || $0.hasSuffix(".svg") || $0.hasSuffix(".geojson")
        }.sorted()
        #expect(files.contains("daily.csv") && files.contains("sleep_nights.csv") && files.contains("svg/density.svg"))
        for file in files {
            #expect(fm.contents(atPath: dir + "/memory/" + file) == fm.contents(atPath: dir + "/disk/" + file), "\(file)")
        }
        for out in ["memory", "disk"] {
            let everything = try #require(fm.subpaths(atPath: dir + "/" + out))
            #expect(everything.filter { $0.hasSuffix(".spill") || $0.contains(".staging-") }.isEmpty, "\(out): \(everything)")
        }
    }
}
