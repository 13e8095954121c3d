import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailKit
@testable import HealthTrailSynth

/// A differential test of the two builds over mutated inputs: hostile numbers, dates, offsets,
/// units and names, broken nesting, NUL and invalid UTF-8, random byte flips and truncations of
/// export.xml, of a route file and of the zip itself. For every case the release and the debug
/// binary must agree: same exit code, same message, same bytes in every output.
///
/// `$HEALTHTRAIL_MUTATIONS` cases (`make test-agreement` runs 300, `make fuzz` many more), from a fixed
/// seed: a failure names its case number, which reproduces it.
@Suite struct BuildAgreementMutationTests {
    static var caseCount: Int { Int(ProcessInfo.processInfo.environment["HEALTHTRAIL_MUTATIONS"] ?? "") ?? 100 }

    /// The mutations' raw material: a small export.xml holding a few elements of every kind the
    /// generator writes, and one route file cut to 40 points.
    struct Base {
        var xml: [UInt8]
        var gpx: [UInt8]
        var gpxName: String
    }

    static func makeBase(in dir: String) throws -> Base {
        var options = SynthOptions(days: 3, seed: 11)
        options.firstDay = (2023, 3, 25)
        let archive = dir + "/base.zip"
        _ = try ExportSynthesizer.write(to: archive, options: options)
        let xml = try unzip(archive, "apple_health_export/export.xml")
        let listing = try unzip(archive, nil)
        let gpxEntry = try #require(
            String(decoding: listing, as: UTF8.self).split(separator: "\n")
                .map { String($0.split(separator: " ").last ?? "") }.first { $0.hasSuffix(".gpx") })
        let gpx = try unzip(archive, gpxEntry)
        return Base(
            xml: Array(sampled(String(decoding: xml, as: UTF8.self)).utf8),
            gpx: Array(cutRoute(String(decoding: gpx, as: UTF8.self)).utf8),
            gpxName: String(gpxEntry.split(separator: "/").last!))
    }

    /// The system's unzip: one entry's bytes, or with no entry the listing (`-Z1`).
    static func unzip(_ archive: String, _ entry: String?) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        process.arguments = entry.map { ["-p", archive, $0] } ?? ["-Z1", archive]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "unzip \(archive) \(entry ?? "-Z1") failed")
        return data
    }

    /// The prolog, then the first three top-level elements of every kind (element name and
    /// `type`/activity), whole with their children; the generator writes one element a line.
    static func sampled(_ xml: String) -> String {
        var out = "", kept: [String: Int] = [:]
        var block: [Substring] = [], closing: String?
        var inBody = false
        for line in xml.split(separator: "\n", omittingEmptySubsequences: false) {
            if !inBody {
                out += line + "\n"
                if line.hasPrefix(" <Me ") { inBody = true }
                continue
            }
            if let end = closing {
                block.append(line)
                if line.hasPrefix(end) { flush(&block, &kept, &out); closing = nil }
                continue
            }
            guard line.hasPrefix(" <"), !line.hasPrefix(" </") else {
                if line.hasPrefix("</HealthData") { out += line + "\n" }
                continue
            }
            block = [line]
            if line.hasSuffix("/>") {
                flush(&block, &kept, &out)
            } else {
                let name = line.dropFirst(2).prefix { $0 != " " && $0 != ">" }
                closing = " </\(name)>"
            }
        }
        return out
    }

    private static func flush(_ block: inout [Substring], _ kept: inout [String: Int], _ out: inout String) {
        let first = block[0]
        let name = first.dropFirst(2).prefix { $0 != " " }
        let kind = first.range(of: #"(type|workoutActivityType)="[^"]*""#, options: .regularExpression).map { String(first[$0]) } ?? ""
        let key = name + " " + kind
        if kept[key, default: 0] < 3 {
            kept[key, default: 0] += 1
            out += block.joined(separator: "\n") + "\n"
        }
        block = []
    }

    /// A route file with its first 40 points.
    static func cutRoute(_ gpx: String) -> String {
        var out = "", points = 0
        for line in gpx.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.contains("<trkpt") { points += 1; if points > 40 { continue } }
            out += line + "\n"
        }
        return out
    }

    static let hostileNumbers = [
        "1e308", "-1e308", "1e-320", "-0", "NaN", "inf", "9223372036854775807",
        "-9223372036854775808", "18446744073709551616", "0x10", "1,5", "", " 5", "5 ",
        "+3", ".5", "5.", "1e", "--1", "99999999999999999999999", "4.2e9", "-1",
    ]
    static let hostileDates = [
        "0000-01-01 12:00:00 +1200", "9999-12-31 23:59:59 -1400", "2023-02-30 10:00:00 +0100",
        "2023-01-01 25:61:61 +0000", "2023-01-01 10:00:00 +9999", "2023-01-01 10:00:00",
        "1899-12-31 23:59:59 +0000", "2201-01-01 00:00:00 +0000", "2023-13-01 00:00:00 +0100",
        "2023-01-01T10:00:00Z", "", "-001-01-01 00:00:00 +0000", "2023-01-01 10:00:00 -0000",
    ]
    static let hostileGPXTimes = [
        "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2023-02-30T10:00:00Z",
        "2023-01-01T10:00:00+14:00", "2023-01-01T10:00:00.123456789Z", "", "2023-01-01",
    ]
    static let hostileUnits = ["furlong", "", "count/min/min", "KJ", "mi ", "degF/degF", "%%", "kg·m", "\u{0}", "mmHg"]
    static let hostileNames = [
        "&amp;&lt;&gt;", "&#0;", "&#xD800;", "\u{FEFF}Watch", String(repeating: "ab", count: 300),
        "HKQuantityTypeIdentifier" + String(repeating: "aB", count: 88), "../../etc/passwd",
        "HKWorkoutActivityType" + String(repeating: "X", count: 500), "日本語の時計", "a\tb\nc",
    ]

    /// Replaces the value of a random match of `pattern` (its first capture group) with `value`.
    static func replaceRandom(_ text: String, _ pattern: String, with value: String, _ random: inout SynthRandom) -> String {
        let regex = try! NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        let matches = regex.matches(in: text, range: NSRange(location: 0, length: ns.length))
        guard !matches.isEmpty else { return text }
        let range = matches[random.below(matches.count)].range(at: 1)
        return ns.replacingCharacters(in: range, with: value)
    }

    /// One case's inputs: export.xml's and the route file's bytes, and whether the zip's own bytes
    /// are then damaged.
    static func mutate(_ base: Base, case number: Int) -> (xml: [UInt8], gpx: [UInt8], zipDamage: Int?, kind: String) {
        // The generator's own SplitMix64: a case number always means the same mutation.
        var random = SynthRandom(seed: 0x6D75_7461_7465, stream: 1, index: UInt64(number))
        var xml = String(decoding: base.xml, as: UTF8.self)
        var gpx = String(decoding: base.gpx, as: UTF8.self)
        var xmlBytes: [UInt8]?, gpxBytes: [UInt8]?, zipDamage: Int?
        let kind = random.below(12)
        switch kind {
        case 0:
            xml = replaceRandom(
                xml, #"(?:value|sum|average|minimum|maximum|duration|totalDistance|totalEnergyBurned|bpm)="([^"]*)""#,
                with: random.pick(hostileNumbers), &random)
        case 1: xml = replaceRandom(xml, #"(?:startDate|endDate|creationDate|date)="([^"]*)""#, with: random.pick(hostileDates), &random)
        case 2: xml = replaceRandom(xml, #"[uU]nit="([^"]*)""#, with: random.pick(hostileUnits), &random)
        case 3: xml = replaceRandom(xml, #"(?:sourceName|type|workoutActivityType|key|path)="([^"]*)""#, with: random.pick(hostileNames), &random)
        case 4: xml = replaceRandom(xml, #"time="([^"]*)""#, with: random.pick(["00:20:37,80", "99:99:99", "", "1e9", "-1:00:00"]), &random)
        case 5:   // nesting: a line repeated or dropped
            var lines = xml.split(separator: "\n", omittingEmptySubsequences: false)
            let at = 20 + random.below(max(1, lines.count - 21))
            if random.below(2) == 0 { lines.insert(lines[at], at: at) } else { lines.remove(at: at) }
            xml = lines.joined(separator: "\n")
        case 6:   // NUL and invalid UTF-8 inside an attribute
            var bytes = Array(xml.utf8)
            let at = Array(xml.utf8).indices.filter { bytes[$0] == UInt8(ascii: "\"") }
            let spot = at[random.below(at.count)] + 1
            bytes.insert(contentsOf: random.pick([[0], [0xC3], [0xFF, 0xFE], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]]), at: spot)
            xmlBytes = bytes
        case 7:   // random byte flips in export.xml
            var bytes = Array(xml.utf8)
            for _ in 0...random.below(4) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8)) }
            xmlBytes = bytes
        case 8: xmlBytes = Array(Array(xml.utf8).prefix(random.below(xml.utf8.count)))
        case 9:   // the route file: a hostile coordinate, elevation or time
            switch random.below(3) {
            case 0:
                gpx = replaceRandom(gpx, #"(?:lat|lon)="([^"]*)""#, with: random.pick(["91", "-180.0000001", "NaN", "1e400", "", "48,8"]), &random)
            case 1: gpx = replaceRandom(gpx, #"<ele>([^<]*)</ele>"#, with: random.pick(hostileNumbers), &random)
            default: gpx = replaceRandom(gpx, #"<time>([^<]*)</time>"#, with: random.pick(hostileGPXTimes), &random)
            }
        case 10:   // the route file: byte flips or a truncation
            var bytes = Array(gpx.utf8)
            if random.below(2) == 0 {
                for _ in 0...random.below(4) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8)) }
            } else {
                bytes = Array(bytes.prefix(random.below(bytes.count)))
            }
            gpxBytes = bytes
        default: zipDamage = Int(random.next() >> 1)
        }
        return (
            xmlBytes ?? Array(xml.utf8), gpxBytes ?? Array(gpx.utf8), zipDamage,
            [
                "number", "date", "unit", "name", "hrv time", "nesting", "bytes in a value", "xml flips",
                "xml truncated", "gpx value", "gpx bytes", "zip bytes",
            ][kind]
        )
    }

    /// Writes case `number`'s archive; returns its path.
    static func writeCase(_ base: Base, number: Int, in dir: String) throws -> (String, String) {
        let (xml, gpx, damage, kind) = mutate(base, case: number)
        let path = dir + "/case-\(number).zip"
        let zip = try ZipWriter(path: path)
        try zip.addEntry("apple_health_export/export.xml", bytes: xml)
        try zip.addEntry("apple_health_export/workout-routes/" + base.gpxName, bytes: gpx)
        try zip.finish()
        if let damage {
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            if damage % 3 == 0 {
                bytes = Array(bytes.prefix(damage % bytes.count))
            } else {
                for k in 0..<(1 + damage % 3) { bytes[(damage >> (k * 8)) % bytes.count] ^= UInt8(1 << (k % 8)) }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return (path, kind)
    }

    @Test func mutatedInputsGiveTheSameResultInBothBuilds() throws {
        let release = Support.binary, debug = Support.debugBinary
        let dir = Support.temporaryDirectory("mutations")
        let base = try Self.makeBase(in: dir)
        #expect(base.xml.count < 200_000, "the base export.xml is meant to be small: \(base.xml.count) bytes")
        var outcomes: [Int32: Int] = [:]
        for number in 0..<Self.caseCount {
            let (archive, kind) = try Self.writeCase(base, number: number, in: dir)
            let out = dir + "/out-\(number)"
            try BuildAgreementTests.shareOneManifestKey([out + "-release", out + "-debug"])
            let (releaseStatus, releaseMessage) = try BuildAgreementTests.run(release, [archive], out: out + "-release")
            let (debugStatus, debugMessage) = try BuildAgreementTests.run(debug, [archive], out: out + "-debug")
            let label = "case \(number) (\(kind))"
            #expect(
                releaseStatus == debugStatus,
                "\(label): exit \(releaseStatus) (release) against \(debugStatus) (debug): \(releaseMessage) | \(debugMessage)")
            #expect(releaseMessage == debugMessage, "\(label): messages differ: \(releaseMessage) | \(debugMessage)")
            let a = try BuildAgreementTests.comparable(out + "-release"), b = try BuildAgreementTests.comparable(out + "-debug")
            #expect(Set(a.keys) == Set(b.keys), "\(label): the builds wrote different files")
            for (file, bytes) in a where b[file] != nil && b[file] != bytes {
                Issue.record("\(label): \(file) differs between the release and debug builds")
            }
            outcomes[releaseStatus, default: 0] += 1
            if releaseStatus == 0 || releaseStatus == 1 {
                try? FileManager.default.removeItem(atPath: out + "-release")
                try? FileManager.default.removeItem(atPath: out + "-debug")
                try? FileManager.default.removeItem(atPath: archive)
            }
        }
        // Only exit 0 (read, perhaps with counted faults) and 1 (refused with a line) are answers
        // to bad input; a crash or a signal is a finding in itself. Both kinds occur.
        #expect(Set(outcomes.keys).isSubset(of: [0, 1]), "exit codes: \(outcomes)")
        #expect(Self.caseCount < 50 || (outcomes[0, default: 0] > 0 && outcomes[1, default: 0] > 0), "exit codes: \(outcomes)")
    }

    @Test func theBaseHoldsEveryKindOfElementTheGeneratorWrites() throws {
        let dir = Support.temporaryDirectory("mutation-base")
        let base = try Self.makeBase(in: dir)
        let xml = String(decoding: base.xml, as: UTF8.self)
        for element in [
            "<Record ", "<Workout ", "<WorkoutStatistics ", "<WorkoutRoute", "<ActivitySummary ",
            "<Correlation ", "<InstantaneousBeatsPerMinute ", "<MetadataEntry ", "</HealthData>",
        ] {
            #expect(xml.contains(element), "the mutation base has no \(element)")
        }
        #expect(String(decoding: base.gpx, as: UTF8.self).components(separatedBy: "<trkpt").count - 1 == 40)
    }
}

extension SynthRandom {
    fileprivate mutating func below(_ n: Int) -> Int { int(0, n - 1) }
    fileprivate mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
