import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailRun
@testable import HealthTrailSynth
@testable import HealthTrailXML

/// `DeviceValueElision` empties export.xml's `device` values before libxml2 parses them. It must
/// empty them wherever they are attributes (whatever the chunking), touch nothing else, never
/// hide an error libxml2 would report, and never move a line.
@Suite struct DeviceValueElisionTests {
    static let device =
        "&lt;&lt;HKDevice: 0x283c2e400&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:9.1&gt;&gt;"

    /// The filter's output for `bytes` fed in chunks of `chunk` bytes, and the values it emptied.
    static func elide(_ bytes: [UInt8], chunk: Int) -> (output: [UInt8], elided: Int) {
        let elision = DeviceValueElision()
        var output: [UInt8] = []
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: DeviceValueElision.outputCapacity(forInput: max(chunk, 1)), alignment: 16)
        defer { buffer.deallocate() }
        var i = 0
        while i < bytes.count {
            let piece = bytes[i..<min(i + chunk, bytes.count)]
            let n = piece.withUnsafeBytes { elision.rewrite($0, into: buffer) }
            output += UnsafeRawBufferPointer(start: buffer, count: n)
            i += chunk
        }
        output += UnsafeRawBufferPointer(start: buffer, count: elision.finish(into: buffer))
        return (output, elision.elidedValues)
    }

    static func elide(_ text: String, chunk: Int) -> (output: String, elided: Int) {
        let (bytes, elided) = elide(Array(text.utf8), chunk: chunk)
        return (String(decoding: bytes, as: UTF8.self), elided)
    }

    static func chunks(_ bytes: [UInt8], _ size: Int) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    static let chunkSizes = [1, 2, 3, 7, 64, 1000, 1 << 20]

    @Test(arguments: chunkSizes)
    func emptiesTheDeviceValuesOfRecordsWhereverChunksEnd(chunk: Int) {
        let xml = Support.exportXML(
            """
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" device="\(Self.device)" unit="count/min" value="61"/>
             <Record type="HKQuantityTypeIdentifierStepCount" device = '\(Self.device)' value="12">
              <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
             </Record>
            """)
        let (output, elided) = Self.elide(xml, chunk: chunk)
        #expect(elided == 2)
        #expect(output == xml.replacingOccurrences(of: Self.device, with: ""))
        #expect(output.contains(#"device="" unit="count/min""#) && output.contains("device = '' value"))
    }

    @Test(arguments: [1, 5, 1 << 20])
    func touchesNoOtherPlace(chunk: Int) {
        // `device=` in the prolog, in comments, CDATA, a processing instruction, text, another
        // attribute's value, or as part of a longer name: none of it is an attribute named device.
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!ATTLIST Record device CDATA #IMPLIED>
            <!-- <Record device="\(Self.device)"/> -->
            ]>
            <HealthData locale="en_US">
             <!-- a comment: device="\(Self.device)" -- no, -->
             <?healthtrail device="\(Self.device)"?>
             <Note><![CDATA[ <Record device="\(Self.device)"/> ]]> device="\(Self.device)" </Note>
             <Record value=' device="\(Self.device)"' xdevice="\(Self.device)" devices="\(Self.device)" deviceX="\(Self.device)"/>
             <device name="\(Self.device)"/>
            </HealthData>
            """
        let (output, elided) = Self.elide(xml, chunk: chunk)
        #expect(elided == 0)
        #expect(output == xml)
    }

    /// Values libxml2 reads differently or refuses (character references, undefined entities,
    /// `<`, bytes outside printable ASCII, a line break) and values too long to hold back pass
    /// through untouched, so libxml2 still sees them and still reports what is wrong.
    @Test(arguments: [1, 9, 1 << 20])
    func leavesEveryOtherValueAsItIs(chunk: Int) {
        let values = [
            "a&#38;b", "a&nbsp;b", "a<b", "Alex’s Watch", "two\nlines", "tab\there", "a&amp", "&",
            String(repeating: "x", count: DeviceValueElision.longestValue + 1),
        ]
        for value in values {
            let xml = Support.exportXML(" <Record type=\"T\" device=\"\(value)\" value=\"1\"/>")
            let (output, elided) = Self.elide(xml, chunk: chunk)
            #expect(elided == 0 && output == xml, "\(value.prefix(20))")
        }
        let allFive = Support.exportXML(#" <Record device="&lt;&gt;&amp;&quot;&apos; ~!"/>"#)
        #expect(Self.elide(allFive, chunk: chunk).elided == 1)
    }

    @Test func holdsBackAValueTheEntryEndsInside() {
        let truncated = Array(Support.prolog.utf8) + Array(#" <Record device="&lt;&lt;HKDevice: 0x1"#.utf8)
        for chunk in Self.chunkSizes {
            #expect(Self.elide(truncated, chunk: chunk).output == truncated)
        }
    }

    @Test func malformedMarkupTurnsItOff() {
        let xml = Support.exportXML(" <!FOO> <Record device=\"\(Self.device)\"/>")
        let (output, elided) = Self.elide(xml, chunk: 1 << 20)
        #expect(elided == 0 && output == xml)
    }

    /// Spaces around `=` and line breaks: every form is emptied, and the output is the same for
    /// every chunk size (the quick look-back that skips most values must not decide alone).
    @Test func spacingAroundEqualsDoesNotDependOnChunks() {
        let forms = [
            #"device="a&lt;1""#, #"device ="b&lt;2""#, #"device= "c&lt;3""#, #"device = 'd&lt;4'"#,
            "device\n=\n\"e&lt;5\"", "device\t =\t\"f&lt;6\"",
        ]
        let xml = Support.exportXML(forms.map { " <Record type=\"T\" \($0) value=\"1\"/>" }.joined(separator: "\n"))
        let whole = Self.elide(xml, chunk: 1 << 20)
        #expect(whole.elided == forms.count)
        #expect(!whole.output.contains("&lt;") && whole.output.contains("device =\"\" value"))
        for chunk in 1...64 {
            let (output, elided) = Self.elide(xml, chunk: chunk)
            #expect(elided == forms.count && output == whole.output, "chunks of \(chunk)")
        }
    }

    /// The filter starts only where libxml2 sees the root start tag: not at a `<HealthData`
    /// inside a prolog comment or processing instruction (found by review: rewriting there hid
    /// libxml2's "double hyphen within comment" error), and not after a prolog it cannot follow.
    @Test func startsOnlyAtARealRootElement() {
        let root = "\n<HealthData locale=\"en\">\n <Record device=\"\(Self.device)\"/>\n</HealthData>\n"
        let refused = [
            "<!-- <HealthData device=\"a--b\" -->" + root,
            "<?x <HealthData device=\"?>\"?>" + root,
            "<!-- <!DOCTYPE HealthData [ ]> -->" + root,
            "<?xml version=\"1.0\"?>\ntext" + root,
            "<Other/>" + root,
        ]
        for (index, xml) in refused.enumerated() {
            let bytes = Array(xml.utf8)
            for chunk in [1, 6, 1 << 20] {
                #expect(Self.elide(bytes, chunk: chunk).output == bytes, "document \(index), chunks of \(chunk)")
            }
            let original = SAXEventTrace(chunks: [bytes])
            let rewritten = SAXEventTrace(chunks: [Self.elide(bytes, chunk: 6).output])
            #expect(rewritten.lines == original.lines && rewritten.error == original.error, "document \(index)")
        }
        let accepted = [
            "", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- a comment -->\n<?pi data?>",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [ <!-- device=\"x\" --> ]>",
        ]
        for prolog in accepted {
            #expect(Self.elide(prolog + root, chunk: 5).elided == 1, "\(prolog)")
        }
    }

    /// Only UTF-8 documents are rewritten: in UTF-7, UTF-16 or EBCDIC bytes do not mean what
    /// they look like. (fuzz-device-elision found a UTF-7 document whose error the rewrite changed.)
    @Test func rewritesUTF8DocumentsOnly() throws {
        let record = "\n<HealthData>\n <Record device=\"\(Self.device)\"/>\n</HealthData>\n"
        let utf8 = [
            "", "<?xml version=\"1.0\"?>", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<?xml version='1.0' encoding = 'utf8' ?>", "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>",
        ]
        for declaration in utf8 {
            #expect(Self.elide(declaration + record, chunk: 5).elided == 1, "\(declaration)")
        }
        let others = [
            "<?xml version=\"1.0\" encoding=\"UTF-7\"?>", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>",
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?>", "<?xml version=\"1.0\" encoding=\"UTF-8\"",
            "<?xml version=\"1.0\"" + String(repeating: " ", count: 70_000) + "encoding=\"UTF-8\"?>",
        ]
        for declaration in others {
            let xml = declaration + record
            #expect(Self.elide(xml, chunk: 5).output == xml, "\(declaration.prefix(40))")
        }
        let utf16 = [UInt8]([0xFF, 0xFE]) + Array(record.utf8)
        #expect(Self.elide(utf16, chunk: 7).output == utf16)
        let ebcdic = [UInt8]([0x4C, 0x6F, 0xA7, 0x94]) + Array(record.utf8)
        #expect(Self.elide(ebcdic, chunk: 7).output == ebcdic)

        let finding = try #require(
            Data(
                base64Encoded:
                    "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTciPz4KPCFET0NUWVBFIEhlYWx0aERhdGEgWwo8IS0tIEhlYWx0aEtpdE4AAAAgRXhwb21ldGVyICAgICAgICAgQ0RBVEEgI0lNUExJRUQKICBkaWFtZXRlclVBVEEmI0lNUExJRUQKPgpdPgo8SGVhbHRoRGF0YSBsb2NhbGU9ImVuX1VTIj4OIDxFeHBvcnREYXRlIHZhIGRldmljZT0nbHVlPSIxMDExLTD///9nMS0wMyAwOToxMjozNyArMDEwMCIvPgogPE1lIEhLQz1hcmF0YT4K"
            ))
        #expect(Self.elide(Array(finding), chunk: 256).output == Array(finding))
    }

    /// libxml2 reports the same elements, attributes, text, lines and errors for the rewritten
    /// document as for the original, the emptied values aside.
    @Test func libxml2SeesTheSameDocument() throws {
        let good = Support.exportXML(
            """
             <Record type="A" sourceName="Alex’s Watch" device="\(Self.device)" value="1"/>
             <Record type="B" device="\(Self.device)"
               value="2">text &amp; more</Record>
             <Workout workoutActivityType="Run" device="\(Self.device)"><WorkoutRoute device="\(Self.device)"/></Workout>
             <!-- a comment: <Record device="\(Self.device)"/> --><?healthtrail device="\(Self.device)"?>
            """)
        let bad = [
            good.replacingOccurrences(of: "value=\"2\"", with: "value=\"2\" value=\"3\""),   // a duplicated attribute
            good.replacingOccurrences(of: "</Workout>", with: "</Workou>"),   // mismatched end tag
            good.replacingOccurrences(of: "0x283c2e400", with: "0x2<3"),   // `<` in a device value
            good.replacingOccurrences(of: "0x283c2e400", with: "&undefined;"),   // an undefined entity
            good.replacingOccurrences(of: "name:Apple Watch", with: "name:\u{1}"),   // a control character
            good.replacingOccurrences(of: "device=\"\(Self.device)\" value=\"1\"", with: "device=\"\(Self.device)\" device=\"x\""),
            String(good.prefix(good.count - 40)),   // truncated
        ]
        for (index, xml) in ([good] + bad).enumerated() {
            let bytes = Array(xml.utf8)
            let original = SAXEventTrace(chunks: [bytes])
            #expect((original.error == nil) == (index == 0), "document \(index): \(original.error ?? "")")
            for chunk in Self.chunkSizes {
                let (output, _) = Self.elide(bytes, chunk: chunk)
                let rewritten = SAXEventTrace(chunks: Self.chunks(output, chunk))
                #expect(rewritten.lines == original.lines, "document \(index), chunks of \(chunk)")
                #expect(rewritten.error == original.error, "document \(index), chunks of \(chunk)")
            }
        }
    }

    /// On the generator's export (every iPhone and Watch record has a device), every device
    /// value is emptied, whatever the chunking, and libxml2 sees the same document otherwise.
    @Test func emptiesEveryDeviceOfAGeneratedExport() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 2, seed: 5))
        let archive = try ZipArchive(path: dir + "/export.zip")
        let entry = try #require(archive.entries.first { $0.fileName == "export.xml" })
        var bytes: [UInt8] = []
        try archive.read(entry) { $0.append(to: &bytes) }
        let devices = String(decoding: bytes, as: UTF8.self).components(separatedBy: " device=\"").count - 1
        #expect(devices > 1000)
        let whole = Self.elide(bytes, chunk: bytes.count)
        #expect(whole.elided == devices)
        #expect(whole.output.count < bytes.count * 3 / 4)
        for chunk in [13, 4096, ZipArchive.chunkSize] {
            // A Bool, not `==` inside #expect: a failure would diff megabytes byte by byte.
            let same = Self.elide(bytes, chunk: chunk).output == whole.output
            #expect(same, "chunks of \(chunk)")
        }
        let original = SAXEventTrace(chunks: Self.chunks(bytes, ZipArchive.chunkSize))
        let rewritten = SAXEventTrace(chunks: Self.chunks(whole.output, ZipArchive.chunkSize))
        #expect(original.error == nil && original.lines.count > 5000)
        let same = rewritten.lines == original.lines
        #expect(same, "first difference at event \(zip(rewritten.lines, original.lines).prefix { $0 == $1 }.count)")
    }

    /// A run writes the same files with and without the elision, on a generated archive, a real
    /// 2018 export and a real iOS 16 export with a broken DTD.
    @Test func runsWriteTheSameOutputsWithAndWithout() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 5, seed: 11))
        try Self.expectSameOutputs(dir + "/export.zip", in: dir)
    }

    @Test(
        .enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent"),
        arguments: ["ericwolter/Export.zip", "k0rventen/test-export4.zip"])
    func realExportsWriteTheSameOutputsWithAndWithout(fixture: String) throws {
        let dir = Support.temporaryDirectory("realExportsWriteTheSameOutputs-\(fixture.prefix(4))")
        try Self.expectSameOutputs(Support.fixture(fixture), in: dir)
        // And the filter really is on for them (their prologs and DTDs let it start): every
        // device value but the few that are not plain ASCII is emptied.
        let archive = try ZipArchive(path: Support.fixture(fixture))
        let entry = try #require(archive.entries.filter { $0.fileName.lowercased() == "export.xml" }.first)
        var bytes: [UInt8] = []
        try archive.read(entry) { $0.append(to: &bytes) }
        let devices = String(decoding: bytes, as: UTF8.self).components(separatedBy: " device=\"").count - 1
        let elided = Self.elide(bytes, chunk: ZipArchive.chunkSize).elided
        #expect(devices > 1000 && elided > devices * 9 / 10, "\(elided) of \(devices) device values emptied")
    }

    static func expectSameOutputs(_ archive: String, in dir: String) throws {
        var with = RunOptions(inputPath: archive, outputDirectory: dir + "/with")
        with.elideDeviceValues = true
        var without = RunOptions(inputPath: archive, outputDirectory: dir + "/without")
        without.elideDeviceValues = false
        let a = try ExportRun.run(with)
        let b = try ExportRun.run(without)
        #expect(a.counts.recordsByType == b.counts.recordsByType && a.faults.total == b.faults.total)
        let fm = FileManager.default
        let files = try #require(fm.subpaths(atPath: dir + "/with")).filter { !$0.hasSuffix("manifest.json") }.sorted()
        #expect(files.contains("heart_rate.csv"))
        #expect(files == (try #require(fm.subpaths(atPath: dir + "/without"))).filter { !$0.hasSuffix("manifest.json") }.sorted())
        for file in files {
            let same = fm.contents(atPath: dir + "/with/" + file) == fm.contents(atPath: dir + "/without/" + file)
            #expect(same, "\(file)")
        }
    }
}
