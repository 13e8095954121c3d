/// What a published row of `dp/<release>.csv` does to the value as drawn: post-processing, which
/// reads nothing but the noisy value and the spec, so it costs no privacy.
///
/// A count cannot be negative, nor a sum whose declared `lower` is at least 0 (every value was
/// clamped to [lower, upper] before noise); nor can a sum whose `upper` is at most 0 be
/// positive. Such a figure is published clamped to 0, and its interval is the part of
/// `value as drawn ± error95` on that side of 0: the true figure lies there, so the interval
/// covers it whenever the unclamped one did. `error95` stays the noise's own half-width. A mean
/// is clamped to [lower, upper] when drawn. `drawn_value` keeps the figure as drawn, unbiased
/// for whoever adds many partitions up; `post_processing` says what was done (`clamped at 0`),
/// empty when nothing was.
struct PostProcessing {
    /// The side of 0 the true figure lies on: +1 (at or above), −1 (at or below), 0 (either).
    let side: Int

    init(_ release: ReleaseSpec.Release) {
        switch release.aggregate {
        case .count: side = 1
        case .sum: side = (release.lower ?? -1) >= 0 ? 1 : (release.upper ?? 1) <= 0 ? -1 : 0
        case .mean, .density: side = 0
        }
    }

    /// A stored row's fields (`ReleaseRunner.drawnColumns`) as published (`ReleaseRunner.columns`).
    func apply(to row: [String]) -> [String] {
        var fields = row
        let drawn = fields[2]
        var note = ""
        if side != 0, let value = Double(fields[2]), let low = Double(fields[3]), let high = Double(fields[4]) {
            let clamp = { (v: Double) in side > 0 ? Swift.max(0, v) : Swift.min(0, v) }
            if clamp(value) != value { note = "clamped at 0" }
            fields[2] = ReleaseRunner.format(clamp(value))
            fields[3] = ReleaseRunner.format(clamp(low))
            fields[4] = ReleaseRunner.format(clamp(high))
        }
        return fields + [drawn, note]
    }
}
