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
final class MapTracks {
    struct Track {
        var workoutID: String
        var activity: String
        var start: Int64
        var pointCount: Int
        /// Where its latitude, longitude pairs are.
        let store: CoordinateStore
        let offset: Int
    }

    private(set) var tracks: [Track] = []
    private(set) var pointCount = 0
    private let store: CoordinateStore

    /// - Parameter spillPath: file for the coordinates (removed with `discard()` or on release);
    ///   nil keeps them in memory.
    init(spillPath: String? = nil) {
        store = CoordinateStore(path: spillPath)
    }

    func add(workoutID: String, activity: String, points: [RoutePoint]) {
        guard let first = points.first else { return }
        let offset = store.append(points)
        tracks.append(Track(workoutID: workoutID, activity: activity, start: first.time, pointCount: points.count,
                            store: store, offset: offset))
        pointCount += points.count
    }

    /// Appends another thread's tracks after these (keeps file order).
    func absorb(_ other: MapTracks) {
        tracks += other.tracks
        pointCount += other.pointCount
    }

    /// A track's latitude, longitude pairs.
    static func coordinates(of track: Track) throws -> [Float] {
        try track.store.read(offset: track.offset, count: track.pointCount * 2)
    }

    /// A track's points (time only on the first), for renderers that take `RoutePoint`s.
    static func points(of track: Track) throws -> [RoutePoint] {
        let c = try coordinates(of: track)
        return stride(from: 0, to: c.count, by: 2).map {
            RoutePoint(time: track.start, latitude: Double(c[$0]), longitude: Double(c[$0 + 1]))
        }
    }

    /// Removes the spill files of every store these tracks use (they must not be read after).
    func discard() {
        var seen = Set<ObjectIdentifier>()
        for store in [store] + tracks.map(\.store) where seen.insert(ObjectIdentifier(store)).inserted { store.remove() }
    }
}

/// `Float` coordinates appended once and read back by offset: in memory, or in a file written
/// through a buffer.
final class CoordinateStore {
    let path: String?
    private var memory: [Float] = []
    private var pending: [Float] = []
    private var fd: Int32 = -1
    private var written = 0
    private var failure: InputError?
    /// Coordinates flushed to the file at once (256 kB).
    static let bufferCount = 1 << 16

    init(path: String?) { self.path = path }
    deinit { remove() }

    /// Appends a track's pairs and returns the offset of the first.
    func append(_ points: [RoutePoint]) -> Int {
        guard path != nil else {
            let offset = memory.count
            for p in points { memory.append(Float(p.latitude)); memory.append(Float(p.longitude)) }
            return offset
        }
        let offset = written + pending.count
        for p in points {
            pending.append(Float(p.latitude)); pending.append(Float(p.longitude))
            if pending.count >= Self.bufferCount { flush() }
        }
        return offset
    }

    private func flush() {
        defer { pending.removeAll(keepingCapacity: true) }
        guard let path, !pending.isEmpty, failure == nil else { return }
        if fd < 0 {
            fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                failure = InputError(file: path, "cannot create spill file: \(String(cString: strerror(errno)))")
                return
            }
        }
        let ok = pending.withUnsafeBytes { bytes -> Bool in
            var done = 0
            while done < bytes.count {
                let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(written * 4 + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        if !ok { failure = InputError(file: path, "cannot write spill file: \(String(cString: strerror(errno)))") }
        written += pending.count
    }

    func read(offset: Int, count: Int) throws -> [Float] {
        guard let path else { return Array(memory[offset..<offset + count]) }
        if !pending.isEmpty { flush() }
        if let failure { throw failure }
        return try [Float](unsafeUninitializedCapacity: count) { buffer, initialised in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var done = 0
            while done < count * 4 {
                let n = pread(fd, raw.baseAddress! + done, count * 4 - done, off_t(offset * 4 + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw InputError(file: path, "cannot read spill file back: \(n < 0 ? String(cString: strerror(errno)) : "file is short")")
                }
                done += n
            }
            initialised = count
        }
    }

    func remove() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        if let path { unlink(path) }
    }
}
