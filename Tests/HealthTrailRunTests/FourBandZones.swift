import HealthTrailAnalysis

extension HeartRateZones {
    /// Four absolute bands for tests of drawing and figures, where any gap-free partition will
    /// do and round bounds keep the expected values easy to work out by hand: resting < 100,
    /// moderate 100–139, vigorous 140–179, maximum ≥ 180 bpm. Runs always use five zones from
    /// a maximum (`fromMaximum`).
    static let fourBands = HeartRateZones(zones: [
        HeartRateZone(name: "resting", lower: 0, upper: 100, colour: "#2c7bb6"),
        HeartRateZone(name: "moderate", lower: 100, upper: 140, colour: "#1a9641"),
        HeartRateZone(name: "vigorous", lower: 140, upper: 180, colour: "#fdae61"),
        HeartRateZone(name: "maximum", lower: 180, upper: nil, colour: "#d7191c"),
    ])
}
