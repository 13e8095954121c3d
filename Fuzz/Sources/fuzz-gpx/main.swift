import FuzzSupport

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailXML

/// The GPX decoder (libxml2 SAX and the fixed-slot point fields) on arbitrary bytes, fed in
/// chunks of a size the input chooses. Every point handed out must carry finite coordinates
/// and fields that are numbers, as the writers assume, and must come back unchanged through the
/// spill record that keeps it until the join (`RoutePointRecord`).
///
/// Differential too: the same bytes parsed whole (`parseWhole`, libxml2's pull mode, as route
/// files of at most 4 MiB are) must give, when good, the same points with the same columns and
/// the same faults, and when broken, an error naming the same file and entry (libxml2 may word
/// it differently, and in two cases put it on another line: see below).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let input = ChunkedInput(data, count)

    /// Decodes the input pushed in chunks or whole: each point's spill record, the faults, and
    /// where the error is.
    func decode(whole: Bool) -> (points: [[UInt8]], faults: Int, errorPlace: String?) {
        let faults = FaultLog(file: "fuzz-input", strict: false)
        var points: [[UInt8]] = []
        let decoder = GPXDecoder(faults: faults, fileName: "fuzz-input", entryName: "route.gpx") { point, raw in
            for field in [raw.elevation, raw.speed, raw.horizontalAccuracy, raw.course, raw.verticalAccuracy] {
                if let field { precondition(NumberText.isNumber(field), "a non-number passed as a number") }
            }
            precondition(point.latitude.isFinite && point.longitude.isFinite, "a point off the globe")
            let record = RoutePointRecord.bytes(point, raw: raw)
            precondition(record.count <= RoutePointRecord.maxLength, "a spill record longer than its bound")
            let back = ByteSpan.withBytes(ofEach: record) { span in
                precondition(
                    RoutePointRecord.length(header: span.prefix(RoutePointRecord.headerLength)) == span.count,
                    "a record's header gives another length")
                let (back, columns) = RoutePointRecord.decode(span)
                precondition(RoutePointRecord.headerLength + columns.count == span.count, "a record's columns lost")
                return back
            }
            precondition(back == point, "a point changed in the spill")
            points.append(record)
        }
        var place: String?
        do {
            if whole {
                try decoder.parseWhole(ByteSpan(input.body))
            } else {
                try input.forEachChunk { try decoder.feed(ByteSpan($0)) }
                try decoder.finish()
            }
        } catch {
            place = "\(error)".components(separatedBy: "malformed XML")[0]
        }
        return (points, faults.total, place)
    }

    let pushed = decode(whole: false)
    guard input.body.count > 0 else { return 0 }   // route files inflated whole are never empty
    let whole = decode(whole: true)
    precondition((whole.errorPlace == nil) == (pushed.errorPlace == nil), "parsed whole, an error or none where pushed not")
    if whole.errorPlace == nil {
        precondition(whole.points == pushed.points, "parsed whole, other points than pushed")
        precondition(whole.faults == pushed.faults, "parsed whole, other faults than pushed")
    }
    // What a broken file gave before its error may differ (push mode holds back events pull
    // mode has made) and reaches no output: a route file's XML error fails the run. The error
    // names the same file and entry, not always on the same line: pull mode reports a file that
    // ends inside an element where the data ends, and a bad byte inside a construct spanning
    // lines on the byte's line, where push mode gives the line the element or construct starts on.
    func fileAndEntry(_ place: String?) -> String? { place?.components(separatedBy: ": line ")[0] }
    precondition(fileAndEntry(whole.errorPlace) == fileAndEntry(pushed.errorPlace), "parsed whole, the error names another entry")
    return 0
}
