import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode

/// How `PredecodedRoutes` keeps a decoded GPX point in its spill file until the join is built.
///
/// A fixed header (`time`, `latitude`, `longitude`, `elevation`, `speed` and horizontal
/// accuracy, NaN where absent, and the columns' length) followed by the point's `route_points.csv` columns from `lat` to
/// `vAcc`, copied from the file's text: the rows come out byte for byte as if the GPX were
/// decoded while they are written. About 100 bytes a point: a two-year export's 950,000 points
/// make a 95 MB scratch file, which the page cache holds and RSS never counts.
package enum RoutePointRecord {
    /// Bytes before the columns: six 8-byte numbers and a 2-byte length.
    package static let headerLength = 50
    /// The longest record.
    package static let maxLength = headerLength + GPXRawFields.maxRenderedLength

    /// Appends `point`'s record to `out`; returns its length.
    @inline(__always)
    package static func encode(_ point: RoutePoint, raw: GPXRawFields, to out: OutputBuffer) -> Int {
        let columns = raw.renderedLength
        writeHeader(of: point, columns: columns, to: out.reserve(headerLength))
        raw.render { out.append($0) }
        return headerLength + columns
    }

    /// `point`'s record as `encode` writes it, as an array (for tests and the fuzzer).
    package static func bytes(_ point: RoutePoint, raw: GPXRawFields) -> [UInt8] {
        var record = OutputSlot.bytes(count: headerLength) { writeHeader(of: point, columns: raw.renderedLength, to: $0) }
        raw.render { $0.append(to: &record) }
        return record
    }

    @inline(__always)
    private static func writeHeader(of point: RoutePoint, columns: Int, to header: OutputSlot) {
        header.store(point.time, toByteOffset: 0)
        header.store(point.latitude, toByteOffset: 8)
        header.store(point.longitude, toByteOffset: 16)
        header.store(point.elevation ?? .nan, toByteOffset: 24)
        header.store(point.speed ?? .nan, toByteOffset: 32)
        header.store(point.horizontalAccuracy ?? .nan, toByteOffset: 40)
        header.store(UInt16(columns), toByteOffset: 48)
    }

    /// The length of the record whose header is `header`.
    @inline(__always)
    package static func length(header: ByteSpan) -> Int {
        headerLength + Int(header.load(fromByteOffset: 48, as: UInt16.self))
    }

    /// The point of a whole record.
    @inline(__always)
    package static func point(of record: ByteSpan) -> RoutePoint {
        let elevation = record.load(fromByteOffset: 24, as: Double.self)
        let speed = record.load(fromByteOffset: 32, as: Double.self)
        let accuracy = record.load(fromByteOffset: 40, as: Double.self)
        return RoutePoint(
            time: record.load(fromByteOffset: 0, as: Int64.self),
            latitude: record.load(fromByteOffset: 8, as: Double.self),
            longitude: record.load(fromByteOffset: 16, as: Double.self),
            elevation: elevation.isNaN ? nil : elevation, speed: speed.isNaN ? nil : speed,
            horizontalAccuracy: accuracy.isNaN ? nil : accuracy)
    }

    /// The columns of a whole record: a view into it.
    @inline(__always) @_lifetime(copy record)
    package static func columns(of record: ByteSpan) -> ByteSpan { record.dropFirst(headerLength) }

    /// Reads one file's records back from a spill file.
    package struct Reader {
        private let records: SpillRecordReader

        package init(file: ReadOnlyFile, offset: UInt64, bytes: UInt64) {
            records = SpillRecordReader(
                file: file, offset: offset, bytes: bytes, headerLength: RoutePointRecord.headerLength,
                maxRecordLength: RoutePointRecord.maxLength)
        }

        /// Calls `body` with each point and its columns (a span that cannot leave the call), in order.
        package func forEach(_ body: (RoutePoint, ByteSpan) throws -> Void) throws {
            let records = self.records
            while let record = try records.next(length: RoutePointRecord.length(header:)) {
                try body(RoutePointRecord.point(of: record), RoutePointRecord.columns(of: record))
            }
        }
    }
}

extension GPXRawFields {
    /// The longest `render` output: seven fields of at most `GPXDecoder.maxFieldLength` bytes and six commas.
    package static let maxRenderedLength = 7 * GPXDecoder.maxFieldLength + 6

    /// The length of `render`'s output.
    package var renderedLength: Int {
        func length(_ span: ByteSpan?) -> Int { span?.count ?? 0 }
        return latitude.count + length(longitude) + length(elevation) + length(speed) + length(horizontalAccuracy)
            + length(course) + length(verticalAccuracy) + 6
    }

    /// Hands `emit` the bytes of `lat,lon,ele,speed,hAcc,course,vAcc` as `route_points.csv`
    /// holds them (a field empty where the file has none), in order; at most
    /// `maxRenderedLength` bytes in all. The numbers are copied, never reformatted.
    @inline(__always)
    package func render(_ emit: (ByteSpan) -> Void) {
        let comma = ByteSpan(",")
        @inline(__always) func next(_ span: ByteSpan?) {
            emit(comma)
            if let span { emit(span) }
        }
        emit(latitude)
        next(longitude)
        next(elevation); next(speed); next(horizontalAccuracy); next(course); next(verticalAccuracy)
    }
}
