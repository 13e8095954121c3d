import Foundation
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode

/// Route files small enough to be inflated whole are parsed whole, in libxml2's pull mode
/// (`SAXPushParser.parseWhole`). A file must decode as it does when its chunks are pushed: a
/// good one to the same points and faults, a broken one to an error naming the same file and
/// entry, on the same line but in two cases fuzz-gpx found, where pull mode's line is the more
/// precise: a file that ends inside an element (the line where the data ends, the open tag's
/// line in the message, against the open tag's line) and a bad byte inside a construct that
/// spans lines (the byte's line, against the line the CDATA section starts on). What a broken
/// file gave before its error may differ too (push mode holds back events pull mode has made:
/// the second finding), and does not matter: a route file's XML error fails the run, so none
/// of it reaches an output. The fourth finding was a bug: NUL bytes after the root element
/// were taken by pull mode for the end of the input, and accepted. libxml2 reports some errors differently in the two modes, pull mode more precisely:
/// a truncated file is "premature end of data (element opened on line 4)" there, on the line
/// where the data ends, and "extra content at the end of the document" in push mode, on the open
/// tag's.
@Suite struct WholeDocumentParseTests {
    struct Decoded: Equatable {
        var points: [String] = []
        var faults = 0
        var error: String?
        /// The error up to its phrase: file, entry and line.
        var errorPlace: String? { error.map { $0.components(separatedBy: "malformed XML")[0] } }
    }

    static func decode(_ bytes: [UInt8], chunk: Int?) -> Decoded {
        var decoded = Decoded()
        let log = FaultLog(file: "routes.zip", strict: false)
        let decoder = GPXDecoder(faults: log, fileName: "routes.zip", entryName: "route.gpx") { point, raw in
            var columns: [UInt8] = []
            raw.render { $0.append(to: &columns) }
            decoded.points.append("\(point.time) " + String(decoding: columns, as: UTF8.self))
        }
        do {
            try ByteSpan.withBytes(ofEach: bytes) { all in
                if let chunk {
                    var start = 0
                    while start < all.count {
                        try decoder.feed(all.dropFirst(start).prefix(chunk))
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

    /// A document that ends inside an element: pull mode reports it on the line where the
    /// data ends, naming the open element and its line; push mode on the line of that element.
    static func endsEarly(_ decoded: Decoded) -> Bool {
        decoded.error?.contains("malformed XML: premature end of data (element opened on line") == true
    }

    static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
    static let point =
        "<trkpt lon=\"2.35\" lat=\"48.85\"><ele>31.5</ele><time>2024-01-02T06:00:00Z</time>"
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
        // fuzz-gpx's first finding: ends inside unclosed elements, pushed in chunks of 7.
        (
            "ends inside open elements",
            Array(
                ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" "
                    + "creator=\"AppLSchema:///1pg/x.xsd\">\n\n    <time>2025-11-1  <name>Route 2019-08-21 4:20pm</name>\n    <tr>\n").utf8)
        ),
        // fuzz-gpx's second finding, pushed in chunks of 7.
        (
            "fuzz finding 2",
            [
                60, 63, 120, 109, 108, 32, 118, 101, 114, 115, 105, 111, 110, 61, 34, 49, 46, 48, 34, 32, 101, 110, 99, 111, 100, 105, 110, 103, 61,
                34, 85, 84, 70, 45, 56, 34, 63, 62, 10, 60, 103, 112, 120, 32, 118, 101, 114, 115, 105, 111, 110, 61, 34, 50, 46, 49, 34, 32, 99, 114,
                101, 97, 116, 111, 114, 61, 34, 65, 112, 112, 108, 101, 32, 72, 101, 97, 108, 116, 104, 32, 69, 109, 47, 71, 80, 88, 47, 49, 47, 49,
                47, 103, 112, 120, 46, 120, 115, 100, 34, 62, 10, 32, 32, 60, 109, 101, 116, 97, 100, 97, 116, 97, 62, 10, 32, 32, 32, 32, 60, 116,
                105, 109, 101, 62, 50, 48, 50, 53, 45, 49, 49, 45, 49, 50, 84, 48, 57, 58, 49, 57, 58, 49, 49, 90, 60, 47, 116, 105, 109, 101, 62, 10,
                32, 32, 60, 47, 109, 101, 116, 97, 100, 97, 116, 97, 62, 10, 32, 32, 60, 116, 114, 107, 62, 10, 32, 32, 32, 32, 60, 110, 97, 109, 101,
                62, 82, 111, 117, 116, 101, 32, 52, 48, 52, 57, 45, 49, 49, 45, 49, 52, 32, 54, 58, 48, 32, 32, 32, 32, 32, 60, 116, 114, 107, 112,
                116, 32, 108, 111, 112, 112, 112, 112, 108, 97, 116, 61, 34, 52, 57, 46, 52, 55, 57, 53, 52, 48, 34, 62, 60, 101, 108, 101, 62, 50,
                53, 52, 46, 56, 51, 51, 48, 55, 55, 60, 47, 101, 108, 101, 62, 60, 116, 105, 101, 48, 109, 62, 50, 57, 53, 49, 53, 34, 62, 60, 101,
                108, 101, 62, 53, 49, 48, 46, 48, 57, 57, 51, 53, 49, 60, 47, 101, 108, 101, 62, 60, 116, 105, 109, 101, 62, 50, 118, 60, 116, 114,
                107, 112, 116, 32, 108, 111, 112, 112, 112, 112, 108, 97, 116, 61, 34, 52, 57, 46, 52, 55, 57, 53, 52, 48, 34, 62, 60, 101, 108, 101,
                62, 50, 53, 52, 46, 56, 51, 51, 48, 55, 55, 60, 47, 101, 108, 101, 62, 60, 116, 105, 101, 48, 109, 62, 50, 57, 53, 49, 53, 34, 62, 60,
                101, 108, 101, 62, 53, 49, 48, 46, 48, 57, 57, 51, 53, 49, 60, 47, 44, 101, 108, 101, 62, 60, 116, 105, 109, 101, 62, 50, 48, 50, 52,
                45, 49, 49, 45, 49, 52, 84, 49, 55, 58, 48, 52, 58, 52, 52, 90, 60, 47, 116, 105, 126, 101, 62, 60, 101, 120, 116, 101, 110, 115, 105,
                111, 110, 115, 62, 60, 115, 112, 101, 101, 100, 62, 49, 46, 52, 48, 52, 55, 55, 48, 50, 52, 45, 49, 49, 45, 49, 52, 84, 49, 55, 58,
                48, 52, 58, 52, 52, 90, 60, 47, 116, 105, 126, 101, 62, 60, 101, 120, 116, 101, 110, 115, 105, 111, 110, 115, 62, 60, 115, 112, 101,
                101, 100, 62, 49, 46, 52, 48, 52, 55, 55, 49, 38, 60, 47, 115, 112, 101, 101, 100, 62, 60, 99, 111, 117, 114, 115, 101, 62, 49, 55,
                48, 174, 50, 50, 53, 57, 56, 48, 60, 47, 99, 111, 117, 114, 115, 101, 62, 60, 104, 65, 101, 0, 111, 110, 115, 62, 60, 47, 116, 114,
                107, 112, 116, 62, 10, 60, 60, 69, 120, 112, 111, 114, 116, 68, 97, 116, 101, 32, 118, 97, 108, 117, 101, 61, 34, 62, 10,
            ]
        ),
        // fuzz-gpx's third finding, pushed in chunks of 256: a byte that is not UTF-8 on line 9,
        // inside a CDATA section opened on line 4 and never closed.
        (
            "fuzz finding 3",
            [
                60, 63, 120, 109, 108, 32, 118, 101, 114, 115, 105, 111, 110, 61, 34, 49, 46, 48, 34, 32, 101, 110, 99, 111, 100, 105, 110, 103, 61,
                34, 85, 84, 70, 45, 56, 34, 63, 62, 10, 60, 103, 112, 120, 32, 118, 101, 114, 115, 105, 111, 110, 61, 34, 49, 46, 49, 34, 32, 99, 114,
                101, 97, 116, 111, 114, 61, 34, 65, 112, 112, 108, 101, 32, 72, 101, 97, 108, 116, 104, 32, 69, 120, 112, 111, 114, 116, 34, 32, 120,
                109, 108, 110, 115, 61, 34, 104, 116, 116, 112, 58, 47, 47, 119, 119, 119, 46, 116, 111, 112, 111, 103, 114, 97, 102, 105, 120, 46,
                99, 111, 109, 47, 71, 80, 88, 47, 49, 47, 49, 34, 32, 120, 109, 108, 110, 115, 58, 120, 115, 105, 61, 34, 104, 116, 116, 112, 58, 47,
                47, 119, 119, 119, 46, 119, 51, 46, 111, 114, 103, 47, 50, 48, 48, 49, 47, 88, 77, 76, 83, 99, 104, 101, 109, 97, 45, 105, 110, 115,
                116, 97, 110, 99, 101, 34, 32, 120, 115, 105, 58, 115, 99, 104, 101, 109, 97, 76, 111, 99, 97, 116, 105, 111, 110, 61, 34, 104, 116,
                116, 112, 58, 47, 47, 119, 119, 119, 46, 116, 111, 112, 111, 103, 114, 109, 47, 71, 80, 88, 47, 49, 47, 49, 47, 103, 112, 120, 46,
                120, 115, 100, 34, 62, 10, 32, 32, 60, 109, 101, 116, 97, 100, 97, 116, 97, 62, 10, 32, 32, 32, 32, 60, 33, 91, 67, 68, 65, 84, 65,
                91, 60, 116, 105, 109, 101, 62, 50, 48, 50, 53, 45, 49, 49, 45, 49, 50, 84, 48, 57, 58, 49, 55, 58, 49, 55, 90, 60, 47, 116, 105, 109,
                101, 62, 10, 32, 32, 60, 47, 109, 101, 116, 97, 100, 97, 116, 97, 62, 10, 32, 32, 60, 116, 114, 107, 62, 10, 32, 32, 32, 32, 60, 110,
                97, 109, 101, 62, 82, 111, 117, 116, 101, 32, 50, 48, 49, 57, 45, 48, 56, 45, 50, 35, 49, 32, 52, 58, 50, 48, 112, 109, 60, 47, 110,
                97, 109, 101, 62, 10, 32, 32, 32, 32, 60, 116, 114, 107, 115, 101, 103, 62, 10, 32, 32, 32, 32, 32, 32, 60, 116, 114, 107, 112, 116,
                32, 108, 111, 110, 61, 34, 48, 46, 53, 50, 52, 51, 50, 56, 34, 32, 108, 97, 116, 61, 34, 52, 57, 46, 56, 49, 49, 53, 53, 54, 34, 62,
                60, 101, 108, 101, 62, 56, 53, 46, 54, 52, 55, 50, 52, 48, 60, 47, 101, 108, 101, 62, 60, 116, 105, 109, 101, 62, 50, 48, 49, 57, 45,
                48, 56, 45, 50, 49, 84, 177, 51, 58, 53, 55, 58, 52, 48, 90, 60, 47, 116, 105, 109, 101, 62, 60, 101, 120, 116, 101, 110, 115, 105,
                111, 110, 115, 62, 60, 115, 112, 101, 101, 100, 62, 48, 46, 55, 53, 53, 51, 56, 53, 60, 47, 115, 112, 101, 101, 100, 62, 60, 99, 111,
                117, 114, 115, 101, 62, 50, 54, 53, 46, 57, 56, 55, 55, 51, 50, 60, 47, 99, 111, 117, 114, 115, 101, 62, 60, 104, 65, 99, 99, 62, 49,
                46, 57, 50, 49, 56, 56, 53, 51, 60, 47, 104, 65, 99, 99, 62, 60, 118, 65, 99, 99, 62, 49, 46, 55, 49, 52, 56, 50, 53, 60, 60, 69, 120,
                112, 111, 114, 116, 68, 97, 116, 101, 32, 118, 97, 108, 117, 101, 61, 34, 47, 118, 65, 99, 99, 62, 60, 47, 101, 120, 116, 101, 110,
                115, 105, 111, 110, 115, 62, 60, 47, 116, 114, 107, 112, 116, 62, 10, 32, 32, 32, 32, 32, 32, 60, 116, 114, 107, 112, 116, 32, 108,
                111, 110, 61, 34, 48, 46, 53, 50, 52, 51, 49, 55, 34, 32, 108, 97, 116, 61, 34, 52, 57, 46, 56, 49, 49, 53, 53, 52, 34, 62, 60, 101,
                108, 101, 62, 56, 53, 46, 54, 51, 53, 49, 48, 49, 60, 47, 101, 108, 101, 62, 60, 116, 105, 109, 101, 62, 50, 48, 49, 57, 45, 48, 56,
                45, 50, 49, 84, 49, 51, 58, 53, 55, 58, 52, 49, 90, 97, 102, 60, 47, 116, 105, 109, 101, 62, 60, 101, 120, 116, 101, 110, 115, 105,
                111, 110, 115, 62, 60, 115, 112, 101, 101, 100, 62, 48, 46, 55, 53, 49, 52, 56, 55, 60, 47, 115, 112, 101, 101, 100, 62, 60, 99, 111,
                117, 114, 115, 101, 62, 50, 54, 53, 46, 57, 56, 55, 55, 51, 50, 60, 47, 99, 111, 117, 114, 115, 101, 62, 60, 104, 65, 99, 32, 62, 49,
                46, 54, 56, 55, 49, 51, 48, 60, 47, 104, 65, 99, 99, 62, 60, 118, 65, 99, 99, 62, 49, 46, 53, 50, 52, 48, 52, 56, 49, 46, 52, 49, 48,
                51, 51, 56, 60, 47, 118, 65, 99, 99, 62, 60, 47, 101, 120, 116, 101, 110, 115, 105, 111, 110, 115, 62, 60, 47, 116, 114, 107, 112,
                116, 62, 10, 60, 47, 116, 114, 107, 115, 101, 103, 62, 60, 47, 116, 114, 107, 62, 60, 47, 103, 112, 120, 62, 10,
            ]
        ),
        // fuzz-gpx's fourth finding, pushed in chunks of 7: NUL bytes after the root element,
        // which pull mode took for the end of the input and accepted.
        (
            "fuzz finding 4",
            [
                60, 63, 120, 109, 108, 32, 118, 101, 114, 115, 105, 111, 110, 61, 34, 49, 46, 48, 34, 32, 101, 110, 99, 111, 100, 105, 110, 103, 61,
                34, 85, 84, 70, 45, 56, 34, 63, 62, 10, 60, 103, 112, 120, 32, 118, 101, 114, 115, 105, 111, 110, 61, 34, 49, 36, 49, 34, 32, 99, 114,
                101, 97, 116, 111, 114, 61, 34, 65, 112, 112, 108, 101, 32, 72, 101, 97, 108, 116, 104, 32, 69, 120, 112, 111, 114, 116, 34, 32, 120,
                109, 108, 110, 115, 61, 34, 104, 116, 116, 112, 58, 47, 47, 119, 119, 119, 46, 116, 114, 107, 112, 116, 105, 120, 46, 99, 111, 109,
                47, 71, 80, 88, 47, 49, 47, 49, 47, 103, 112, 120, 46, 120, 115, 100, 34, 62, 10, 32, 32, 60, 109, 101, 116, 97, 100, 97, 116, 97, 62,
                10, 32, 32, 32, 32, 60, 116, 105, 109, 101, 62, 50, 48, 50, 53, 45, 49, 49, 45, 49, 38, 97, 112, 111, 115, 59, 57, 58, 48, 56, 90, 60,
                47, 116, 105, 109, 101, 62, 10, 32, 32, 60, 47, 109, 101, 116, 97, 100, 97, 116, 97, 62, 10, 32, 32, 60, 116, 114, 107, 62, 10, 32,
                32, 32, 32, 60, 110, 97, 109, 101, 62, 82, 111, 117, 116, 101, 32, 50, 48, 50, 52, 45, 48, 57, 45, 50, 50, 32, 54, 58, 52, 52, 112,
                109, 60, 47, 110, 97, 109, 101, 62, 10, 32, 32, 32, 32, 60, 116, 114, 107, 115, 101, 103, 62, 10, 32, 32, 32, 32, 32, 32, 60, 116,
                114, 107, 112, 116, 32, 108, 111, 110, 61, 34, 54, 46, 50, 48, 48, 52, 55, 57, 34, 32, 108, 108, 98, 97, 116, 61, 34, 52, 57, 46, 52,
                56, 49, 48, 50, 49, 34, 62, 60, 101, 108, 101, 62, 50, 51, 56, 46, 50, 53, 56, 51, 53, 51, 60, 47, 101, 108, 101, 62, 60, 116, 105,
                109, 101, 62, 50, 48, 50, 52, 45, 48, 57, 45, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109,
                109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109,
                109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109,
                109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109,
                109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109, 109,
                50, 50, 84, 49, 54, 58, 52, 51, 58, 48, 49, 90, 60, 47, 116, 105, 109, 101, 62, 60, 101, 120, 116, 101, 110, 115, 105, 111, 110, 115,
                62, 60, 115, 112, 101, 101, 100, 62, 48, 46, 48, 54, 54, 52, 51, 49, 60, 47, 115, 112, 101, 101, 100, 62, 60, 99, 111, 117, 114, 115,
                101, 62, 50, 52, 55, 46, 53, 48, 56, 54, 51, 53, 60, 47, 99, 111, 117, 114, 115, 101, 62, 60, 104, 65, 99, 99, 62, 49, 46, 57, 55, 54,
                51, 42, 52, 60, 47, 104, 65, 99, 99, 62, 60, 118, 65, 99, 99, 62, 49, 46, 50, 49, 55, 48, 49, 56, 60, 47, 118, 65, 99, 99, 62, 60, 47,
                101, 120, 116, 101, 110, 115, 105, 111, 110, 115, 62, 60, 47, 116, 114, 107, 112, 116, 62, 10, 32, 32, 32, 32, 32, 32, 60, 116, 114,
                107, 112, 116, 32, 108, 111, 110, 61, 34, 48, 46, 50, 48, 48, 52, 55, 53, 34, 32, 108, 97, 116, 61, 34, 52, 57, 46, 52, 56, 49, 48,
                50, 48, 34, 62, 60, 101, 108, 101, 62, 50, 51, 56, 46, 51, 51, 54, 52, 51, 56, 60, 47, 101, 108, 101, 62, 60, 116, 105, 109, 101, 62,
                50, 48, 50, 52, 45, 48, 57, 45, 50, 50, 84, 49, 54, 58, 52, 51, 58, 48, 109, 105, 50, 90, 60, 47, 116, 105, 109, 101, 62, 60, 101,
                120, 116, 101, 110, 115, 105, 111, 110, 115, 62, 60, 115, 112, 101, 101, 100, 62, 48, 46, 50, 55, 54, 52, 49, 54, 60, 47, 115, 112,
                101, 101, 100, 62, 60, 99, 111, 117, 114, 115, 101, 62, 50, 52, 49, 46, 51, 56, 54, 52, 52, 49, 60, 47, 99, 111, 117, 114, 115, 101,
                62, 60, 104, 65, 99, 99, 62, 49, 46, 56, 50, 55, 53, 57, 52, 60, 47, 104, 65, 99, 99, 62, 60, 118, 65, 99, 99, 62, 49, 46, 48, 52, 52,
                57, 48, 48, 60, 47, 118, 65, 99, 99, 62, 60, 47, 101, 120, 116, 101, 110, 115, 105, 111, 110, 115, 62, 60, 47, 116, 114, 107, 112,
                116, 62, 10, 32, 32, 32, 32, 32, 32, 60, 116, 114, 107, 112, 116, 32, 108, 111, 110, 61, 34, 54, 46, 50, 48, 48, 52, 54, 53, 34, 32,
                108, 97, 116, 61, 34, 52, 57, 46, 52, 56, 49, 48, 49, 54, 34, 62, 60, 101, 108, 101, 62, 50, 51, 56, 46, 52, 49, 49, 55, 56, 53, 60,
                47, 101, 108, 101, 62, 120, 116, 101, 110, 115, 105, 111, 110, 115, 62, 60, 47, 116, 114, 107, 112, 116, 62, 10, 60, 47, 116, 114,
                107, 115, 101, 103, 62, 60, 47, 116, 114, 107, 62, 60, 47, 103, 112, 120, 62, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ]
        ),
        ("NUL bytes after the root", Array((head + point + tail).utf8) + [0, 0, 0]),
        ("a NUL byte inside a point", Array((head + point + point.replacingOccurrences(of: "<ele>", with: "<ele>\u{0}") + tail).utf8)),
        (
            "a DTD with an external entity",
            Array(
                ("<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n"
                    + "<gpx><trk><trkseg>" + point.replacingOccurrences(of: "31.5", with: "&e;") + tail).utf8)
        ),
    ]

    @Test(arguments: documents.indices)
    func wholeDecodesAsPushed(index: Int) {
        let (name, document) = Self.documents[index]
        let whole = Self.decode(document, chunk: nil)
        for chunk in [1, 7, 256, 4096] {
            let pushed = Self.decode(document, chunk: chunk)
            #expect((whole.error == nil) == (pushed.error == nil), "\(name), chunks of \(chunk)")
            if whole.error == nil {
                #expect(whole.points == pushed.points && whole.faults == pushed.faults, "\(name), chunks of \(chunk)")
            }
            if !Self.endsEarly(whole) && name != "fuzz finding 3" {
                #expect(whole.errorPlace == pushed.errorPlace, "\(name), chunks of \(chunk): \(whole.error ?? "-") vs \(pushed.error ?? "-")")
            }
            if whole.error == nil || !["truncated", "no root", "ends inside open elements", "fuzz finding 3"].contains(name) {
                #expect(whole.error == pushed.error, "\(name), chunks of \(chunk)")
            }
        }
        // Each document does what its name says.
        switch name {
        case "good": #expect(whole.points.count == 50 && whole.error == nil && whole.faults == 0)
        case "a bad point": #expect(whole.points.count == 2 && whole.faults == 1 && whole.error == nil)
        case "truncated": #expect(whole.error?.contains("line 4: malformed XML: premature end of data") == true)
        case "ends inside open elements":
            #expect(whole.error?.hasSuffix("line 6: malformed XML: premature end of data (element opened on line 5)") == true)
        case "nested too deep": #expect(whole.error?.contains("elements nested more than 256 deep") == true)
        case "fuzz finding 4":
            #expect(whole.error?.hasSuffix("line 13: malformed XML: extra content at the end of the document") == true)
        case "NUL bytes after the root":
            #expect(whole.error?.hasSuffix("line 5: malformed XML: extra content at the end of the document") == true)
        case "a NUL byte inside a point":
            #expect(whole.error?.hasSuffix("line 4: malformed XML: character not allowed in XML") == true)
        case "fuzz finding 3": #expect(whole.error?.hasSuffix("line 9: malformed XML: invalid UTF-8") == true)
        default: #expect(whole.error?.contains("entry route.gpx: line ") == true, "\(name)")
        }
    }
}
