import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every route's shape, compact, for the maps drawn after all routes are read.
///
/// The overview and density maps need all routes at once; full `RoutePoint`s would cost about
/// 70 bytes a point (150 MB for a two-million-point history). A track keeps latitude and
/// longitude as `Float`s, 8 bytes a point (about a metre of precision, far below a pixel of any
/// whole-history map), and with a spill file those bytes go to disk as the routes are read:
/// the maps read one track back at a time, so memory stays flat however long the history.
package final class MapTracks {
    package struct Track {
        package var workoutID: String
        package var activity: String
        package var start: Int64
        package var pointCount: Int
        /// Where its latitude, longitude pairs are.
        package let store: CoordinateStore
        package let offset: Int
    }

    package private(set) var tracks: [Track] = []
    private(set) var pointCount = 0
    private let store: CoordinateStore

    /// - Parameter spillPath: file for the coordinates (removed with `discard()` or on release);
    ///   nil keeps them in memory.
    package init(spillPath: String? = nil) {
        store = CoordinateStore(path: spillPath)
    }

    package func add(workoutID: String, activity: String, points: [RoutePoint]) {
        guard let first = points.first else { return }
        let offset = store.append(points)
        tracks.append(
            Track(
                workoutID: workoutID, activity: activity, start: first.time, pointCount: points.count,
                store: store, offset: offset))
        pointCount += points.count
    }

    /// Appends another thread's tracks after these (keeps file order).
    package func absorb(_ other: MapTracks) {
        tracks += other.tracks
        pointCount += other.pointCount
    }

    /// Makes every track readable from several threads at once: a store opens its spill file
    /// for reading on its first read, which must not race.
    package func prepareForConcurrentReads() throws {
        var seen = Set<ObjectIdentifier>()
        for track in tracks where seen.insert(ObjectIdentifier(track.store)).inserted {
            try track.store.openForReading()
        }
    }

    /// A track's latitude, longitude pairs.
    package static func coordinates(of track: Track) throws -> [Float] {
        try track.store.read(offset: track.offset, count: track.pointCount * 2)
    }

    /// A track's points (time only on the first), for renderers that take `RoutePoint`s.
    package static func points(of track: Track) throws -> [RoutePoint] {
        let c = try coordinates(of: track)
        return stride(from: 0, to: c.count, by: 2).map {
            RoutePoint(time: track.start, latitude: Double(c[$0]), longitude: Double(c[$0 + 1]))
        }
    }

    /// Removes the spill files of every store these tracks use (they must not be read after).
    package func discard() {
        var seen = Set<ObjectIdentifier>()
        for store in [store] + tracks.map(\.store) where seen.insert(ObjectIdentifier(store)).inserted { store.remove() }
    }
}

/// `Float` coordinates appended once and read back by offset: in memory, or in a spill file
/// written by a `SpillRecordWriter` and read back with a `ReadOnlyFile`.
package final class CoordinateStore {
    package let path: String?
    private var memory: [Float] = []
    private var writer: SpillRecordWriter?
    private var reader: ReadOnlyFile?
    private var written = 0
    /// The failure to create the file, thrown by the first read (write failures are the writer's).
    private var failure: InputError?

    package init(path: String?) { self.path = path }
    deinit { remove() }

    /// Appends a track's pairs and returns the offset of the first.
    package func append(_ points: [RoutePoint]) -> Int {
        let offset = path == nil ? memory.count : written
        guard let path else {
            for p in points { memory.append(Float(p.latitude)); memory.append(Float(p.longitude)) }
            return offset
        }
        if writer == nil && failure == nil {
            do { writer = try SpillRecordWriter(path: path, bufferSize: 1 << 18) } catch {
                failure = error as? InputError ?? InputError(file: path, "cannot create spill file")
            }
        }
        guard let writer else { return offset }
        for p in points {
            writer.append((Float(p.latitude), Float(p.longitude)))
        }
        written += points.count * 2
        return offset
    }

    /// Ends writing and opens the spill file for reading, once; `read` does it on its first call.
    package func openForReading() throws {
        guard let path else { return }
        if let failure { throw failure }
        if reader == nil, let writer {
            // Every track is written before the first is read (the maps come after the routes).
            try writer.close()
            reader = try ReadOnlyFile(path: path)
        }
    }

    package func read(offset: Int, count: Int) throws -> [Float] {
        guard let path else { return Array(memory[offset..<offset + count]) }
        try openForReading()
        guard let reader else { throw InputError(file: path, "spill file read before anything was written") }
        return try reader.readRecords(Float.self, count: count, atByte: UInt64(offset * MemoryLayout<Float>.stride))
    }

    package func remove() {
        guard writer != nil else { return }
        try? writer?.close()
        writer = nil
        reader = nil
        if let path { unlink(path) }
    }
}
