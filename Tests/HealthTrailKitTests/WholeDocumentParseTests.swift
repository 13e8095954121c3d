import Foundation
import Testing
@testable import HealthTrailKit

/// Route files small enough to be inflated whole are parsed whole, in libxml2's pull mode
/// (`SAXPushParser.parseWhole`). Good or broken, a file must decode as it does when its chunks
/// are pushed: the same points, the same faults, an error in the same place (file, entry,
/// line). libxml2 words some errors differently in the two modes, pull mode more precisely:
/// a truncated file is "Premature end of data in tag time" there, and "Extra content at the
/// end of the document" in push mode.
@Suite struct WholeDocumentParseTests {
    struct Decoded: Equatable {
        var points: [String] = []
        var faults = 0
        var error: String?
        /// The error up to libxml2's own words: file, entry and line.
        var errorPlace: String? { error.map { $0.components(separatedBy: "malformed XML")[0] } }
    }

    static func decode(_ bytes: [UInt8], chunk: Int?) -> Decoded {
        var decoded = Decoded()
        let log = FaultLog(file: "routes.zip", strict: false)
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: GPXRawFields.maxRenderedLength)
        defer { scratch.deallocate() }
        let decoder = GPXDecoder(faults: log, fileName: "routes.zip", entryName: "route.gpx") { point, raw in
            let n = raw.render(into: scratch)
            decoded.points.append("\(point.time) " + String(decoding: UnsafeBufferPointer(start: scratch, count: n), as: UTF8.self))
        }
        do {
            try bytes.withUnsafeBytes { all in
                if let chunk {
                    var start = 0
                    while start < all.count {
                        try decoder.feed(UnsafeRawBufferPointer(rebasing: all[start..<min(start + chunk, all.count)]))
                        start += chunk
                    }
                    try decoder.finish()
                } else {
                    try decoder.parseWhole(all)
                }
            }
        } catch {
            decoded.error = "\(error)"
        }
        decoded.faults = log.total
        return decoded
    }

    static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
    static let point = "<trkpt lon=\"2.35\" lat=\"48.85\"><ele>31.5</ele><time>2024-01-02T06:00:00Z</time>"
        + "<extensions><speed>2.5</speed><course>12</course><hAcc>3.2</hAcc><vAcc>2.1</vAcc></extensions></trkpt>\n"
    static let tail = "</trkseg></trk></gpx>\n"

    static let documents: [(String, [UInt8])] = [
        ("good", Array((head + String(repeating: point, count: 50) + tail).utf8)),
        ("a bad point", Array((head + point + point.replacingOccurrences(of: "2.35", with: "east") + point + tail).utf8)),
        ("truncated", Array((head + point + point.prefix(60)).utf8)),
        ("mismatched tags", Array((head + point + "<trkpt lon=\"1\" lat=\"2\"></ele></trkpt>\n" + tail).utf8)),
        ("undefined entity", Array((head + point.replacingOccurrences(of: "31.5", with: "&x;") + tail).utf8)),
        ("text after the root", Array((head + point + tail + "more").utf8)),
        ("no root", Array("<?xml version=\"1.0\"?>\n".utf8)),
        ("nested too deep", Array((head + String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300) + tail).utf8)),
        ("invalid UTF-8", Array((head + point + "<trkpt lon=\"2\" lat=\"4").utf8) + [0xE9] + Array("\"/>\(tail)".utf8)),
        ("a DTD with an external entity", Array(("<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n"
            + "<gpx><trk><trkseg>" + point.replacingOccurrences(of: "31.5", with: "&e;") + tail).utf8)),
    ]

    @Test(arguments: documents.indices)
    func wholeDecodesAsPushed(index: Int) {
        let (name, document) = Self.documents[index]
        let whole = Self.decode(document, chunk: nil)
        for chunk in [1, 7, 4096] {
            let pushed = Self.decode(document, chunk: chunk)
            #expect(whole.points == pushed.points && whole.faults == pushed.faults, "\(name), chunks of \(chunk)")
            #expect(whole.errorPlace == pushed.errorPlace, "\(name), chunks of \(chunk): \(whole.error ?? "-") vs \(pushed.error ?? "-")")
            if whole.errorPlace == nil || !["truncated", "no root"].contains(name) {
                #expect(whole.error == pushed.error, "\(name), chunks of \(chunk)")
            }
        }
        // Each document does what its name says.
        switch name {
        case "good": #expect(whole.points.count == 50 && whole.error == nil && whole.faults == 0)
        case "a bad point": #expect(whole.points.count == 2 && whole.faults == 1 && whole.error == nil)
        case "truncated": #expect(whole.error?.contains("line 4: malformed XML: Premature end of data") == true)
        case "nested too deep": #expect(whole.error?.contains("elements nested more than 256 deep") == true)
        default: #expect(whole.error?.contains("entry route.gpx: line ") == true, "\(name)")
        }
    }
}
