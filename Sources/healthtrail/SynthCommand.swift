import ArgumentParser
import HealthTrailKit
import Foundation

/// `healthtrail synth OUT.zip --days N --seed S`.
struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Write a realistic synthetic export archive (for tests, benchmarks and demos).",
        discussion: """
        The same --days and --seed always give the same bytes. About 1 MB of export.xml per day:
        --days 700 makes a benchmark-sized export. The data mimics an iPhone and an Apple Watch \
        worn together: overlapping steps, staged sleep, workouts with GPX routes and dense heart \
        rate, and the quirks of real exports (curly apostrophes, &amp; in names, mixed units). \
        Prints what it wrote as JSON (the counts tests compare against).
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

    @OptionGroup var versionOption: VersionOption

    func validate() throws {
        guard days > 0 else { throw ValidationError("--days must be at least 1") }
    }

    func run() throws {
        var options = SynthOptions(days: days, seed: seed)
        options.brokenDTD = brokenDtd
        options.xmlName = xmlName
        let summary = try ExportSynthesizer.write(to: output, options: options)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(summary), as: UTF8.self))
    }
}
