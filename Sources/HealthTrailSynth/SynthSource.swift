/// A source app or device as it appears in `sourceName`/`sourceVersion`/`device` attributes.
///
/// Names are stored already XML-escaped (`&amp;`) and keep the curly apostrophe (U+2019) that
/// iOS puts in default device names, two things readers get wrong.
package struct SynthSource {
    package enum Device { case none, watch, iPhone }

    /// `sourceName`, XML-escaped.
    package let name: StaticString
    /// Software versions over time, one per `daysPerVersion` days, then the last one stays.
    package let versions: [StaticString]
    package let daysPerVersion: Int
    /// Which `<<HKDevice…>>` description its records carry, when they carry one.
    package let device: Device

    package func version(day: Int) -> StaticString {
        versions[min(day / daysPerVersion, versions.count - 1)]
    }

    package static let watch = SynthSource(
        name: "Alex’s Apple Watch",
        versions: [
            "9.1", "9.2", "9.3", "9.4", "9.5", "9.6", "10.0", "10.1", "10.2", "10.3", "10.4",
            "10.5", "10.6", "11.0", "11.1", "11.2", "11.3", "11.4",
        ],
        daysPerVersion: 45, device: .watch)
    package static let iPhone = SynthSource(
        name: "Alex’s iPhone",
        versions: [
            "16.2", "16.3", "16.4", "16.5", "16.6", "17.0", "17.1", "17.2", "17.3", "17.4",
            "17.5", "17.6", "18.0", "18.1", "18.2", "18.3", "18.4", "18.5",
        ],
        daysPerVersion: 45, device: .iPhone)
    /// The Health app on the phone, for values typed in by hand (no device).
    package static let healthApp = SynthSource(
        name: "Alex’s iPhone", versions: ["16.2", "17.0", "18.0"],
        daysPerVersion: 365, device: .none)
    package static let withings = SynthSource(
        name: "Withings &amp; Co", versions: ["6.3.1", "6.4.0", "6.5.2"],
        daysPerVersion: 240, device: .none)
    package static let strava = SynthSource(
        name: "Strava", versions: ["331.0.0", "352.0.1"],
        daysPerVersion: 300, device: .none)
    package static let zwift = SynthSource(name: "Zwift", versions: ["1.0.1"], daysPerVersion: 1_000, device: .none)
    /// A third-party sleep app: legacy `Asleep` and `InBed` samples, no device.
    package static let sleepCycle = SynthSource(
        name: "Sleep Cycle", versions: ["5.21.1", "5.24.0"],
        daysPerVersion: 400, device: .none)
}
