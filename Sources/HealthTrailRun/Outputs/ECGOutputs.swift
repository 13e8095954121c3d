import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

/// The rows of `ecg.csv` and `ecg_samples.csv`, and the recordings' ids.
enum ECGOutputs {
    /// A recording's place in `ecg.csv`: which recording, and its number among those of its
    /// second. Two integers, so that a hundred thousand recordings cost little beside their own.
    struct Row {
        /// The recording's place in the array `rows(_:)` was given.
        var index: Int
        /// 1 for the first recording of its second, 2 for the next, and so on.
        var number: Int

        /// The row's id: the recorded instant, `20230305T015507Z`, with `-2`, `-3`, … after it
        /// from the second recording of the same second on.
        func id(of recording: ECGRecording) -> String {
            number == 1 ? recording.baseID : "\(recording.baseID)-\(number)"
        }
    }

    /// The entry's path relative to `base`, the folder of export.xml.
    static func file(of recording: ECGRecording, base: String) -> String {
        recording.entry.hasPrefix(base) ? String(recording.entry.dropFirst(base.count)) : recording.entry
    }

    /// Sorts the recordings by their recorded instant (then file) and numbers those of each
    /// second (two files recorded in the same second, or one file copied), so an id names one
    /// recording whatever order the archive lists its entries in.
    ///
    /// Sorted by instant, the recordings of one second are next to each other: each is numbered
    /// from the one before it, in one pass. An id is the second's (`baseID`, which holds no `-`)
    /// plus that number, so two ids are equal only for the same second and number.
    static func rows(_ recordings: [ECGRecording]) -> [Row] {
        let order = recordings.indices.sorted {
            let a = recordings[$0], b = recordings[$1]
            return (a.recorded.utcSeconds, a.entry, $0) < (b.recorded.utcSeconds, b.entry, $1)
        }
        var rows: [Row] = []
        rows.reserveCapacity(order.count)
        for index in order {
            let second = recordings[index].recorded.utcSeconds
            let sameSecond = rows.last.map { recordings[$0.index].recorded.utcSeconds == second } ?? false
            rows.append(Row(index: index, number: sameSecond ? rows[rows.count - 1].number + 1 : 1))
        }
        return rows
    }

    /// One row of `ecg.csv`, in `OutputSchema.ecg`'s order.
    static func write(_ row: Row, of r: ECGRecording, base: String, to out: CSVWriter) {
        out.field(row.id(of: r)); out.comma()
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
        out.field(file(of: r, base: base))
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
