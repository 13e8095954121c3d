import HealthTrailArchive
import HealthTrailDecode

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `PredecodedRoutes` keeps a decoded GPX point in its spill file until the join is built.
///
/// A fixed header (`time`, `latitude`, `longitude`, `elevation` and `speed`, NaN where absent,
/// and the columns' length) followed by the point's `route_points.csv` columns from `lat` to
/// `vAcc`, copied from the file's text: the rows come out byte for byte as if the GPX were
/// decoded while they are written. About 100 bytes a point: a two-year export's 950,000 points
/// make a 95 MB scratch file, which the page cache holds and RSS never counts.
package enum RoutePointRecord {
    /// Bytes before the columns: five 8-byte numbers and a 2-byte length.
    package static let headerLength = 42
    /// The longest record.
    package static let maxLength = headerLength + GPXRawFields.maxRenderedLength

    /// Writes `point` and its columns into `out` (room for `maxLength` bytes); returns the length.
    package static func encode(_ point: RoutePoint, raw: GPXRawFields, into out: UnsafeMutablePointer<UInt8>) -> Int {
        let columns = raw.render(into: out + headerLength)
        let header = UnsafeMutableRawPointer(out)
        header.storeBytes(of: point.time, toByteOffset: 0, as: Int64.self)
        header.storeBytes(of: point.latitude, toByteOffset: 8, as: Double.self)
        header.storeBytes(of: point.longitude, toByteOffset: 16, as: Double.self)
        header.storeBytes(of: point.elevation ?? .nan, toByteOffset: 24, as: Double.self)
        header.storeBytes(of: point.speed ?? .nan, toByteOffset: 32, as: Double.self)
        header.storeBytes(of: UInt16(columns), toByteOffset: 40, as: UInt16.self)
        return headerLength + columns
    }

    /// The point and columns of the whole record at `header` (the columns stay in place).
    @inline(__always)
    package static func decode(_ header: UnsafeRawPointer) -> (RoutePoint, ByteSpan) {
        let count = Int(header.loadUnaligned(fromByteOffset: 40, as: UInt16.self))
        let elevation = header.loadUnaligned(fromByteOffset: 24, as: Double.self)
        let speed = header.loadUnaligned(fromByteOffset: 32, as: Double.self)
        let point = RoutePoint(
            time: header.loadUnaligned(as: Int64.self),
            latitude: header.loadUnaligned(fromByteOffset: 8, as: Double.self),
            longitude: header.loadUnaligned(fromByteOffset: 16, as: Double.self),
            elevation: elevation.isNaN ? nil : elevation, speed: speed.isNaN ? nil : speed)
        return (point, ByteSpan(start: (header + headerLength).assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// Reads one file's records back from a spill file in 1 MiB blocks.
    package final class Reader {
        package let file: ReadOnlyFile
        private var offset: UInt64
        private let end: UInt64
        private let buffer: UnsafeMutableRawBufferPointer
        /// Unread bytes are `buffer[position..<filled]`.
        private var position = 0, filled = 0

        package init(file: ReadOnlyFile, offset: UInt64, bytes: UInt64) {
            self.file = file
            self.offset = offset
            end = offset + bytes
            buffer = .allocate(byteCount: Int(min(bytes, 1 << 20)) + RoutePointRecord.maxLength, alignment: 8)
        }

        deinit { buffer.deallocate() }

        /// The next point and its columns (valid until the next call), nil after the last.
        package func next() throws -> (RoutePoint, ByteSpan)? {
            if filled - position < RoutePointRecord.maxLength && offset < end { try refill() }
            guard filled - position >= RoutePointRecord.headerLength else {
                if position < filled || offset < end { throw truncated() }
                return nil
            }
            let header = UnsafeRawPointer(buffer.baseAddress! + position)
            let count = Int(header.loadUnaligned(fromByteOffset: 40, as: UInt16.self))
            guard filled - position >= RoutePointRecord.headerLength + count else { throw truncated() }
            position += RoutePointRecord.headerLength + count
            return RoutePointRecord.decode(header)
        }

        /// Moves the unread bytes to the front and reads as many more as fit.
        private func refill() throws {
            let kept = filled - position
            let want = Int(min(UInt64(buffer.count - kept), end - offset))
            if kept > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + position, kept) }   // may overlap
            let got = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[kept..<kept + want]), at: offset)
            guard got == want else { throw truncated() }
            offset += UInt64(got)
            position = 0
            filled = kept + got
        }

        private func truncated() -> InputError {
            InputError(file: file.path, "route spill file is short: written and read back differ")
        }
    }
}

extension GPXRawFields {
    /// The longest `render` output: seven fields of at most `GPXDecoder.maxFieldLength` bytes and six commas.
    package static let maxRenderedLength = 7 * GPXDecoder.maxFieldLength + 6

    /// Writes `lat,lon,ele,speed,hAcc,course,vAcc` as `route_points.csv` holds them (a field
    /// empty where the file has none) into `out`, which has room for `maxRenderedLength`
    /// bytes; returns the length. The numbers are copied, never reformatted.
    package func render(into out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        @inline(__always) func copy(_ span: ByteSpan) {
            (out + n).update(from: span.start, count: span.count)
            n += span.count
        }
        @inline(__always) func next(_ span: ByteSpan?) {
            out[n] = 0x2C; n += 1
            if let span { copy(span) }
        }
        copy(latitude)
        next(longitude)
        next(elevation); next(speed); next(horizontalAccuracy); next(course); next(verticalAccuracy)
        return n
    }
}
