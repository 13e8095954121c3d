import HealthTrailBase

/// One Apple Watch ECG recording (`electrocardiograms/ecg_2023-03-04.csv`): what its header
/// says about it and how many samples follow.
///
/// The header also names the person and gives their date of birth; neither is read into this
/// type, or anywhere: `ECGDecoder` keeps only the values of the keys below.
package struct ECGRecording: Sendable, Equatable {
    /// The entry's path in the export.
    package var entry: String
    /// `Recorded Date`: when the recording started, with the UTC offset the file states.
    package var recorded: Timestamp
    /// `Classification` as written: `Sinus Rhythm`, `Atrial Fibrillation`, `Inconclusive`,
    /// `Poor Recording`, …; empty when the file has none.
    package var classification: String
    /// `Symptoms` as written (empty for none).
    package var symptoms: String
    /// `Software Version` of the ECG app (`1.90`).
    package var softwareVersion: String
    /// `Device`: the Watch model (`Watch6,7`).
    package var device: String
    /// `Sample Rate` in hertz (`512 hertz` is 512).
    package var sampleRateHz: Double
    /// `Lead`: `Lead I` for a Watch.
    package var lead: String
    /// `Unit` of the samples as written: `µV`.
    package var unit: String
    /// The number of samples.
    package var samples: Int

    /// The recording's length in seconds: samples over the sample rate.
    package var durationSeconds: Double { Double(samples) / sampleRateHz }

    /// Seconds from the start of the recording to sample `index` (0-based).
    package func timeOffset(ofSample index: Int) -> Double { Double(index) / sampleRateHz }

    /// `20230305T015507Z`: the recorded instant in UTC, as workout ids begin.
    package var baseID: String { recorded.utcString.filter { $0 != "-" && $0 != ":" } }
}

/// Why an ECG file cannot be read: where, a stable kind for the manifest's counts, and what is
/// wrong, never the value itself (neither a sample nor header text).
package struct ECGMalformed: Error, Sendable, Equatable {
    /// The 1-based line the problem is on.
    package var line: Int
    /// `ecg_non_numeric_sample`, `ecg_missing_recorded_date`, …
    package var kind: String
    /// What is wrong, in words.
    package var message: String

    package init(line: Int, kind: String, _ message: String) {
        self.line = line
        self.kind = kind
        self.message = message
    }
}
