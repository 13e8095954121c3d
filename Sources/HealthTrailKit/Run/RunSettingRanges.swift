/// The accepted ranges of the run settings that take numbers: one definition for the command
/// line (`RunSettings`) and for pipeline files (`PipelineSchema`), so that a value one accepts
/// the other does too. Their defaults are `RunOptions`'s and `SVGOptions`'s.
public enum RunSettingRanges {
    /// `--join-tolerance`, `join_tolerance_s`: seconds.
    public static let joinToleranceSeconds: ClosedRange<Int> = 0...3600
    /// `--max-hr`, `zones.max_hr`: beats per minute.
    public static let maximumHeartRate: ClosedRange<Double> = 100...250
    /// `--svg-size`, `maps.size`: pixels.
    public static let svgSize: ClosedRange<Int> = 100...10_000
    /// `--map-min-points`, `maps.min_points`: points.
    public static let mapMinimumPoints: ClosedRange<Int> = 2...Int.max
}
