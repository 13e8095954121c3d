import ArgumentParser
import Foundation
import HealthTrailKit
import HealthTrailSynth

/// `healthtrail synth OUT.zip --days N --seed S [--summary]`.
struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Write a realistic synthetic export archive (for tests, benchmarks and demos).",
        discussion: """
            The same --days and --seed always give the same bytes. About 1 MB of export.xml per day:
            --days 700 makes a benchmark-sized export. The data mimics an iPhone and an Apple Watch \
            worn together: overlapping steps, staged sleep, workouts with GPX routes and dense heart \
            rate, and the quirks of real exports (curly apostrophes, &amp; in names, mixed units). \
            Prints nothing; --summary prints what it wrote as JSON (the counts tests compare against).

            Examples:
              healthtrail synth /tmp/fake-export.zip --days 30 --seed 7
              healthtrail synth fake.zip --days 30 --seed 7 --summary > summary.json
            """
    )

    @Argument(help: ArgumentHelp("The zip to write.", valueName: "out.zip"))
    var output: String

    @Option(help: "Days of data.")
    var days: Int = 30

    @Option(help: "Random seed.")
    var seed: UInt64 = 1

    @Flag(help: "Write the broken internal DTD of iOS 16 exports.")
    var brokenDtd = false

    @Option(help: "Name of the main XML entry (real exports: export.xml, Export.xml, 导出.xml).")
    var xmlName: String = "export.xml"

    @Flag(help: "Print a JSON summary of what was written (counts per record type, workouts, routes, …).")
    var summary = false

    @OptionGroup var versionOption: VersionOption

    func validate() throws {
        guard days > 0 else { throw ValidationError("--days must be at least 1") }
    }

    func run() throws {
        if output == "-" {
            throw StandardStreamRefused("synth writes a zip file, whose directory goes at its end: give a file name, not - (standard output)")
        }
        var options = SynthOptions(days: days, seed: seed)
        options.brokenDTD = brokenDtd
        options.xmlName = xmlName
        let written = try ExportSynthesizer.write(to: output, options: options)
        guard summary else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(written), as: UTF8.self))
    }
}
