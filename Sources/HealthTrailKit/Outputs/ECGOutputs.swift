import HealthTrailArchive
import HealthTrailDecode
import HealthTrailWrite

/// The rows of `ecg.csv` and `ecg_samples.csv`, and the recordings' ids.
enum ECGOutputs {
    /// A recording with the id and file name its rows carry.
    struct Row {
        var id: String
        /// The entry's path relative to the folder of export.xml.
        var file: String
        var recording: ECGRecording
    }

    /// Sorts the recordings by their recorded instant (then file) and gives each an id: the
    /// instant, `20230305T015507Z`, with `-2`, `-3`, … after it on a clash (two files recorded
    /// in the same second, or one file copied), so an id names one recording whatever order
    /// the archive lists its entries in. `base` is the folder of export.xml, which `file` is
    /// relative to.
    static func rows(_ recordings: [ECGRecording], base: String) -> [Row] {
        var taken: Set<String> = []
        return recordings.sorted { ($0.recorded.utcSeconds, $0.entry) < ($1.recorded.utcSeconds, $1.entry) }.map { r in
            var id = r.baseID, n = 2
            while !taken.insert(id).inserted {
                id = "\(r.baseID)-\(n)"
                n += 1
            }
            let file = r.entry.hasPrefix(base) ? String(r.entry.dropFirst(base.count)) : r.entry
            return Row(id: id, file: file, recording: r)
        }
    }

    /// One row of `ecg.csv`, in `OutputSchema.ecg`'s order.
    static func write(_ row: Row, to out: CSVWriter) {
        let r = row.recording
        out.field(row.id); out.comma()
        out.utc(r.recorded.utcSeconds); out.comma()
        out.offset(r.recorded.offsetMinutes); out.comma()
        out.field(r.classification); out.comma()
        out.field(r.symptoms); out.comma()
        out.int(Int64(r.samples)); out.comma()
        out.decimal(r.sampleRateHz, digits: 6); out.comma()
        out.decimal(r.durationSeconds, digits: 6); out.comma()
        out.field(r.lead); out.comma()
        out.field(r.unit); out.comma()
        out.field(r.device); out.comma()
        out.field(r.softwareVersion); out.comma()
        out.field(row.file)
        out.endRow()
    }

    /// One row of `ecg_samples.csv`: the sample's value as the file wrote it (a number the
    /// decoder has checked), so nothing is rounded. The offset has nine decimals, exact for
    /// Apple's 512 Hz (1/512 s is 0.001953125).
    static func writeSample(id: String, index: Int, of r: ECGRecording, text: ByteSpan, to out: CSVWriter) {
        out.field(id); out.comma()
        out.int(Int64(index)); out.comma()
        out.decimal(r.timeOffset(ofSample: index), digits: 9); out.comma()
        out.field(text)
        out.endRow()
    }
}
