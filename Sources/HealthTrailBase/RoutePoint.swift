/// One GPS point of a route, decoded and joined with heart rate.
package struct RoutePoint: Sendable, Equatable {
    /// UTC seconds.
    package var time: Int64
    /// WGS84 degrees.
    package var latitude: Double
    package var longitude: Double
    /// Metres above sea level, when the file has it.
    package var elevation: Double?
    /// Metres per second, as the device reported it.
    package var speed: Double?
    /// Heart rate at this moment from `HeartRateJoin`, nil where no sample lies within tolerance.
    package var bpm: Double?
    /// The device's horizontal accuracy estimate, metres (`hAcc`), when the file has it: the
    /// route cleaning treats a fix this uncertain as a glitch (`TrackCleaner`).
    package var horizontalAccuracy: Double?

    package init(
        time: Int64, latitude: Double, longitude: Double, elevation: Double? = nil, speed: Double? = nil,
        bpm: Double? = nil, horizontalAccuracy: Double? = nil
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.speed = speed
        self.bpm = bpm
        self.horizontalAccuracy = horizontalAccuracy
    }
}
