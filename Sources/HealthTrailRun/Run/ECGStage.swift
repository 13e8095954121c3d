import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

/// The ECG recordings (`electrocardiograms/*.csv`): `ecg.csv` always, `ecg_samples.csv` with
/// `--ecg-samples`.
///
/// Each entry streams through an `ECGDecoder`; none is extracted or held whole. A malformed
/// file is one fault (entry, line, kind; `--strict` makes it fatal) and no row. The ids come
/// from the recordings sorted by time, which are known only once every header has been read,
/// so the samples are written in a second read of each entry (about 100 KB each) rather than
/// kept in memory.
enum ECGStage {
    struct Result {
        /// The recordings written to `ecg.csv`.
        let recordings: Int
        /// Their samples, all of them (written or not).
        let samples: Int
    }

    static func run(_ run: RunContext) throws -> Result {
        var recordings: [ECGRecording] = []
        // Each recording's entry: two entries may share a path in a malformed zip.
        var entries: [ArchiveEntry] = []
        for entry in run.layout.ecgFiles.sorted(by: { $0.path < $1.path }) {
            let decoder = ECGDecoder()
            do {
                try run.source.read(entry) { chunk in try decoder.feed(chunk) { _, _ in } }
                recordings.append(try decoder.finish(entry: entry.path) { _, _ in })
                entries.append(entry)
            } catch let malformed as ECGMalformed {
                if let fatal = run.faults.record(entry: entry.path, line: malformed.line, kind: malformed.kind, malformed.message) {
                    throw fatal
                }
            }
        }
        let main = run.layout.mainXML.path
        let base = main.contains("/") ? String(main[...main.lastIndex(of: "/")!]) : ""
        let rows = ECGOutputs.rows(recordings)
        let table = try run.outputs.addWriter(OutputSchema.ecg.name, header: OutputSchema.ecg.names)
        for row in rows { ECGOutputs.write(row, of: recordings[row.index], base: base, to: table) }
        if run.options.ecgSamples {
            let samples = try run.outputs.addWriter(OutputSchema.ecgSamples.name, header: OutputSchema.ecgSamples.names)
            for row in rows {
                try writeSamples(
                    of: recordings[row.index], id: row.id(of: recordings[row.index]), entry: entries[row.index], from: run.source, to: samples)
            }
        }
        return Result(recordings: recordings.count, samples: recordings.reduce(0) { $0 + $1.samples })
    }

    /// Reads a recording's entry again and writes its samples.
    static func writeSamples(of recording: ECGRecording, id: String, entry archived: ArchiveEntry, from source: ExportSource, to out: CSVWriter)
        throws
    {
        let entry = recording.entry
        let decoder = ECGDecoder()
        do {
            try source.read(archived) { chunk in
                try decoder.feed(chunk) { ECGOutputs.writeSample(id: id, index: $0, of: recording, text: $1, to: out) }
            }
            let again = try decoder.finish(entry: entry) {
                ECGOutputs.writeSample(id: id, index: $0, of: recording, text: $1, to: out)
            }
            guard again == recording else {
                throw InputError(file: source.displayName, entry: entry, "ECG file changed while it was read")
            }
        } catch let malformed as ECGMalformed {
            // Read once without a fault, a second read can differ only if the file changed.
            throw InputError(file: source.displayName, entry: entry, line: malformed.line, "ECG file changed while it was read")
        }
    }
}
