import FuzzSupport
@testable import HealthTrailKit

/// The GPX decoder (libxml2 SAX and the fixed-slot point fields) on arbitrary bytes, fed in
/// chunks of a size the input chooses. Every point handed out must carry finite coordinates
/// and fields that are numbers, as the writers assume, and must come back unchanged through the
/// spill record that keeps it until the join (`RoutePointRecord`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let input = ChunkedInput(data, count)
    let faults = FaultLog(file: "fuzz-input", strict: false)
    let record = UnsafeMutablePointer<UInt8>.allocate(capacity: RoutePointRecord.maxLength)
    defer { record.deallocate() }
    let decoder = GPXDecoder(faults: faults, fileName: "fuzz-input", entryName: "route.gpx") { point, raw in
        for field in [raw.elevation, raw.speed, raw.horizontalAccuracy, raw.course, raw.verticalAccuracy] {
            if let field { precondition(NumberText.isNumber(field), "a non-number passed as a number") }
        }
        precondition(point.latitude.isFinite && point.longitude.isFinite, "a point off the globe")
        let n = RoutePointRecord.encode(point, raw: raw, into: record)
        precondition(n <= RoutePointRecord.maxLength, "a spill record longer than its bound")
        let (back, columns) = RoutePointRecord.decode(UnsafeRawPointer(record))
        precondition(back == point && RoutePointRecord.headerLength + columns.count == n, "a point changed in the spill")
    }
    do {
        try input.forEachChunk { try decoder.feed($0) }
        try decoder.finish()
    } catch {}
    return 0
}
