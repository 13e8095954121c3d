import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailXML

@Suite struct PrologFilterTests {
    /// Feeds `text` to the filter in chunks of `chunk` bytes and returns what the parser would get.
    func filtered(_ text: String, chunk: Int) -> (output: String, version: String?) {
        var filter = PrologFilter()
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let piece = Array(bytes[i..<min(i + chunk, bytes.count)])
            i += chunk
            ByteSpan.withBytes(ofEach: piece) { buffer in
                if filter.done { out += buffer.bytes; return }
                if case .ready(let prolog, let resumeAt) = filter.consume(buffer) {
                    out += prolog
                    out += buffer.dropFirst(resumeAt).bytes
                }
            }
        }
        return (String(decoding: out, as: UTF8.self), filter.exportVersion)
    }

    @Test(arguments: [1, 7, 64, 100_000])
    func dropsTheDTDAndKeepsLineNumbers(chunk: Int) {
        let brokenDTD = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 13 -->
            <!ATTLIST Attachment
              identifier       CDATA #IMPLIED

            >
            ]>
            <HealthData locale="en_FR">
             <Record type="X"/>
            </HealthData>
            """
        let (output, version) = filtered(brokenDTD, chunk: chunk)
        #expect(version == "13")
        #expect(!output.contains("ATTLIST"))
        #expect(
            output.split(separator: "\n", omittingEmptySubsequences: false).count
                == brokenDTD.split(separator: "\n", omittingEmptySubsequences: false).count)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[8] == "<HealthData locale=\"en_FR\">")
    }

    @Test func passesAnExportWithoutDTDUnchanged() {
        let text = "<?xml version=\"1.0\"?>\n<HealthData locale=\"de_DE\">\n</HealthData>\n"
        #expect(filtered(text, chunk: 5).output == text)
    }

    @Test func doesNotMistakeALongerNameForTheRoot() {
        let text = "<?xml version=\"1.0\"?>\n<HealthDataX/>\n<HealthData>\n</HealthData>"
        let out = filtered(text, chunk: 3).output
        #expect(out == text)
    }
}
