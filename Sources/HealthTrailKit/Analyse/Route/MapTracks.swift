/// Every route's shape, compact, for the maps drawn after all routes are read.
///
/// The overview and density maps need all routes at once; full `RoutePoint`s would cost about
/// 70 bytes a point (150 MB for a two-million-point history). A track keeps latitude and
/// longitude as `Float`s, 8 bytes a point: about a metre of precision, far below a pixel of any
/// whole-history map.
final class MapTracks {
    struct Track {
        var workoutID: String
        var activity: String
        var start: Int64
        /// Latitude, longitude pairs.
        var coordinates: [Float]
    }

    private(set) var tracks: [Track] = []
    private(set) var pointCount = 0

    func add(workoutID: String, activity: String, points: [RoutePoint]) {
        guard let first = points.first else { return }
        var coordinates: [Float] = []
        coordinates.reserveCapacity(points.count * 2)
        for p in points {
            coordinates.append(Float(p.latitude))
            coordinates.append(Float(p.longitude))
        }
        tracks.append(Track(workoutID: workoutID, activity: activity, start: first.time, coordinates: coordinates))
        pointCount += points.count
    }

    /// Appends another thread's tracks after these (keeps file order).
    func absorb(_ other: MapTracks) {
        tracks += other.tracks
        pointCount += other.pointCount
    }

    /// A track's points (time only on the first), for renderers that take `RoutePoint`s.
    static func points(of track: Track) -> [RoutePoint] {
        stride(from: 0, to: track.coordinates.count, by: 2).map {
            RoutePoint(time: track.start, latitude: Double(track.coordinates[$0]), longitude: Double(track.coordinates[$0 + 1]))
        }
    }
}
