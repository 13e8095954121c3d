/// What `ExportSynthesizer` should generate. Same options (seed included) ⇒ byte-identical archive.
package struct SynthOptions: Sendable {
    /// Number of consecutive days of data (about 1 MB of export.xml per day).
    package var days: Int
    /// Seed of the deterministic generator; nothing else introduces randomness.
    package var seed: UInt64
    /// The first day of data, a local calendar date of the person (Europe/Paris).
    package var firstDay: (year: Int, month: Int, day: Int) = (2023, 1, 1)
    /// Offset (minutes east of UTC) stamped on every date in export.xml. Real exports stamp the
    /// offset in force at export time on all dates, even those recorded in summer or abroad.
    package var exportOffsetMinutes: Int = 60
    /// Reproduce the iOS 16 bug where the last ATTLIST of the internal DTD is never closed
    /// (as in the real test-export3.zip): strict XML parsers reject the file.
    package var brokenDTD: Bool = false
    /// The folder the entries live in; some tools re-zip exports under another name.
    package var topFolder: String = "apple_health_export"
    /// Name of the main XML entry; real ones include `Export.xml` and `导出.xml`.
    package var xmlName: String = "export.xml"
    /// Write GPX files and `WorkoutRoute` links for outdoor workouts.
    package var includeRoutes: Bool = true
    /// zlib level for every entry (-1: zlib's default, 0: stored).
    package var compressionLevel: Int32 = -1
    /// Add two link faults real archives have: one workout whose `FileReference` names a GPX
    /// file that is not in the archive, and one GPX file no workout references.
    /// Needs `includeRoutes`.
    package var includeBrokenRouteLinks: Bool = false

    package init(days: Int, seed: UInt64) {
        self.days = days
        self.seed = seed
    }
}
