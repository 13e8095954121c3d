/// One GPS point of a route, decoded and joined with heart rate.
public struct RoutePoint: Sendable, Equatable {
    /// UTC seconds.
    public var time: Int64
    /// WGS84 degrees.
    public var latitude: Double
    public var longitude: Double
    /// Metres above sea level, when the file has it.
    public var elevation: Double?
    /// Metres per second, as the device reported it.
    public var speed: Double?
    /// Heart rate at this moment from `HeartRateJoin`, nil where no sample lies within tolerance.
    public var bpm: Double?
    /// The device's horizontal accuracy estimate, metres (`hAcc`), when the file has it: the
    /// route cleaning treats a fix this uncertain as a glitch (`TrackCleaner`).
    public var horizontalAccuracy: Double?

    public init(
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
