import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailRun

/// ECG recordings (`electrocardiograms/*.csv`) into `ecg.csv` and, with `--ecg-samples`,
/// `ecg_samples.csv`: the real files' quirks, malformed files as faults, ids, and the header's
/// name and date of birth kept out of everything a run writes or prints.
@Suite struct ECGTests {
    /// An ECG file as Apple writes it, with `samples` as its sample lines.
    static func ecgFile(
        name: String = "Zebulon Quixote", dateOfBirth: String = "Feb 29, 1964", recorded: String? = "2023-03-04 20:55:07 -0500",
        rate: String = "512 hertz", unit: String = "µV", samples: [String] = ["-107.825", "12.5", "3"]
    ) -> String {
        var text = "Name,\(name)\nDate of Birth,\"\(dateOfBirth)\"\n"
        if let recorded { text += "Recorded Date,\(recorded)\n" }
        text += "Classification,Sinus Rhythm\nSymptoms,\nSoftware Version,1.90\nDevice,\"Watch6,7\"\nSample Rate,\(rate)\n\n\n"
        text += "Lead,Lead I\nUnit,\(unit)\n\n" + samples.joined(separator: "\n") + "\n"
        return text
    }

    /// A zip of an empty export.xml and these ECG files (name → text) under `electrocardiograms/`.
    static func archive(_ dir: String, _ files: [(String, String)]) throws -> String {
        let zip = dir + "/export.zip"
        try Support.makeZip(
            zip,
            [("apple_health_export/export.xml", Support.exportXML(""))]
                + files.map { ("apple_health_export/electrocardiograms/" + $0.0, $0.1) })
        return zip
    }

    static func manifest(_ out: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))) as? [String: Any])
    }

    // MARK: real files

    /// The three real recordings, read by a short Python reading of their own (header lines split
    /// at the first comma, every line that is a number a sample) and compared with ecg.csv and
    /// ecg_samples.csv, value by value.
    @Test(.enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent: real ECG files not read"))
    func realRecordingsAgreeWithAnIndependentReading() throws {
        let folder = Support.fixture("hacktj23/apple_health_export/electrocardiograms")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".csv") }.sorted()
        #expect(names.count == 3)
        let dir = Support.temporaryDirectory()
        let archive = dir + "/export.zip"
        let writer = try ZipWriter(path: archive)
        try writer.addEntry("apple_health_export/export.xml", bytes: Array(Support.exportXML("").utf8))
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            try writer.addEntry("apple_health_export/electrocardiograms/" + name, bytes: bytes)
        }
        try writer.finish()
        let out = dir + "/out"
        let run = try Support.runCLI(["run", archive, "--out", out, "--ecg-samples", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")

        let script = """
            import csv, datetime, io, json, os, sys
            out = {}
            for name in sorted(os.listdir(sys.argv[1])):
                header, samples = {}, []
                for line in open(os.path.join(sys.argv[1], name), encoding="utf-8").read().splitlines():
                    try:
                        float(line); samples.append(line); continue
                    except ValueError:
                        pass
                    if "," in line:
                        key, value = next(csv.reader(io.StringIO(line)))[0:2]
                        header[key] = value
                t = datetime.datetime.strptime(header["Recorded Date"], "%Y-%m-%d %H:%M:%S %z")
                offset = t.utcoffset().total_seconds() // 60
                rate = float(header["Sample Rate"].split()[0])
                out["electrocardiograms/" + name] = {
                    "recorded_utc": t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "utc_offset": "%s%02d:%02d" % ("-" if offset < 0 else "+", abs(offset) // 60, abs(offset) % 60),
                    "classification": header["Classification"], "symptoms": header["Symptoms"],
                    "software_version": header["Software Version"], "device": header["Device"],
                    "lead": header["Lead"], "unit": header["Unit"], "rate": rate, "samples": samples,
                }
            print(json.dumps(out))
            """
        let python = try Support.runProgram("/usr/bin/env", ["python3", "-c", script, folder])
        #expect(python.status == 0, "\(python.stderr)")
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [String: [String: Any]])

        let table = try Support.readCSV(out + "/ecg.csv")
        #expect(table.header == OutputSchema.ecg.names)
        let rows = table.rows.map { Dictionary(uniqueKeysWithValues: zip(table.header, $0)) }
        #expect(rows.count == expected.count)
        #expect(Set(rows.map { $0["classification"] ?? "" }).count == 3, "three classifications: \(rows.map { $0["classification"] ?? "" })")
        let samples = try Support.readCSV(out + "/ecg_samples.csv")
        let byID = Dictionary(grouping: samples.rows) { $0[0] }
        for row in rows {
            let file = try #require(row["file"])
            let truth = try #require(expected[file], "\(file) is not a real file")
            for column in ["recorded_utc", "utc_offset", "classification", "symptoms", "software_version", "device", "lead", "unit"] {
                #expect(row[column] == truth[column] as? String, "\(file) \(column)")
            }
            let values = try #require(truth["samples"] as? [String])
            let rate = try #require(truth["rate"] as? Double)
            #expect(row["samples"] == String(values.count), "\(file)")
            #expect(Double(row["sample_rate_hz"] ?? "") == rate)
            let duration: Double = Double(row["duration_s"] ?? "") ?? -1
            let expectedDuration: Double = Double(values.count) / rate
            #expect(abs(duration - expectedDuration) < 1e-6, "\(file) duration")
            #expect(row["recording_id"] == row["recorded_utc"]?.filter { $0 != "-" && $0 != ":" })
            let written = try #require(byID[row["recording_id"] ?? ""], "no samples for \(file)")
            #expect(written.map { $0[3] } == values, "\(file): samples differ from the file's")
            #expect(written.map { $0[1] } == (0..<values.count).map(String.init))
        }
        let m = try Self.manifest(out)
        let counts = try #require(m["counts"] as? [String: Any])
        #expect(counts["ecg_recordings"] as? Int == 3)
        #expect(counts["ecg_samples"] as? Int == samples.rows.count)
        #expect((m["faults"] as? [String: Any])?["total"] as? Int == 0)
    }

    // MARK: privacy

    /// The header's name and date of birth reach no output file (CSV, SQLite, Parquet read back
    /// as text, manifest), no log line and no error message, whatever the run: with samples,
    /// with malformed files skipped, with `--strict` failing on one, with the debug manifest,
    /// and in `inspect`.
    @Test func nameAndDateOfBirthReachNoOutputLogOrMessage() throws {
        let name = "Zebulon Quixote", birth = "Feb 29, 1964"
        let dir = Support.temporaryDirectory()
        let zip = try Self.archive(
            dir,
            [
                ("ecg_2023-03-04.csv", Self.ecgFile(name: name, dateOfBirth: birth)),
                ("ecg_2023-03-04_1.csv", Self.ecgFile(name: name, dateOfBirth: birth, recorded: "2023-03-04 21:00:00 -0500")),
                ("ecg_2023-03-04_2.csv", Self.ecgFile(name: name, dateOfBirth: birth, samples: ["1", "Quixote", "2"])),
                ("ecg_2023-03-05.csv", Self.ecgFile(name: name, dateOfBirth: birth, recorded: nil)),
                ("ecg_2023-03-06.csv", Self.ecgFile(name: name, dateOfBirth: birth, rate: "Zebulon")),
                // A quoted name over two lines, the second shaped like a header line that is kept.
                (
                    "ecg_2023-03-07.csv",
                    Self.ecgFile(name: "\"\(name)\nClassification,\(name) Zqx\"", dateOfBirth: birth, recorded: "2023-03-07 08:00:00 +0100")
                ),
            ])
        // Parts too: a first name alone, a surname alone, the day of birth, the date's end.
        let needles = [name, "Zebulon", "Quixote", birth, "Feb 29", "29, 1964"]
        // The text is not part of the expectation: a failure names the file, not its contents.
        func expectAbsent(_ text: String, _ what: String) {
            for needle in needles where text.contains(needle) { Issue.record("\(what) holds `\(needle)`") }
        }

        let runs: [[String]] = [
            ["--ecg-samples", "--format", "csv,sqlite,parquet", "--log-level", "trace"],
            ["--ecg-samples", "--debug-manifest", "--log-format", "json", "--log-level", "trace"],
        ]
        for (index, options) in runs.enumerated() {
            let out = dir + "/out\(index)"
            let run = try Support.runCLI(["run", zip, "--out", out] + options)
            #expect(run.status == 0, "\(run.stderr)")
            expectAbsent(run.stdout + run.stderr, "the output of run \(options)")
            let files = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? []
            #expect(files.contains("ecg.csv") && files.contains("ecg_samples.csv") && files.contains("manifest.json"))
            for file in files {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: out + "/" + file, isDirectory: &isFolder), !isFolder.boolValue else { continue }
                let bytes = try Data(contentsOf: URL(fileURLWithPath: out + "/" + file))
                expectAbsent(String(decoding: bytes, as: UTF8.self), file)
                if file.hasSuffix(".parquet"), TableFormatTests.readersAvailable {
                    // Parquet pages are compressed: every value read back as text.
                    let dump = try Support.runProgram(
                        "/usr/bin/env",
                        ["python3", "-c", "import pyarrow.parquet as pq, sys; print(pq.read_table(sys.argv[1]).to_pylist())", out + "/" + file])
                    #expect(dump.status == 0, "\(dump.stderr)")
                    expectAbsent(dump.stdout, file + " read back")
                }
            }
            let counts = try #require(try Self.manifest(out)["counts"] as? [String: Any])
            #expect(counts["ecg_recordings"] as? Int == 3 && counts["ecg_samples"] as? Int == 9)
            #expect(try Support.readCSV(out + "/ecg.csv").rows.map { $0[3] } == Array(repeating: "Sinus Rhythm", count: 3))
        }
        let strict = try Support.runCLI(["run", zip, "--out", dir + "/strict", "--strict", "--ecg-samples"])
        #expect(strict.status != 0)
        #expect(strict.stderr.contains("ecg_2023-03-04_2.csv"), "\(strict.stderr)")
        expectAbsent(strict.stdout + strict.stderr, "the output of a --strict run")
        let inspect = try Support.runCLI(["inspect", zip])
        expectAbsent(inspect.stdout + inspect.stderr, "inspect")
    }

    // MARK: malformed files

    /// Each malformed file is one fault naming its entry, line and kind, and no row; with
    /// `--strict` the first is the one error line, which names the entry and line and holds no
    /// value from the file.
    @Test func aMalformedFileIsOneFaultNamingItsEntryAndLine() throws {
        let cases: [(file: String, text: String, kind: String, line: Int)] = [
            ("a.csv", Self.ecgFile(samples: ["1", "2", "9.5x7"]), "ecg_non_numeric_sample", 16),
            ("b.csv", Self.ecgFile(recorded: nil), "ecg_missing_recorded_date", 13),
            ("c.csv", Self.ecgFile(recorded: "4 March 2023"), "ecg_bad_date", 3),
            ("d.csv", Self.ecgFile(rate: "fast"), "ecg_bad_sample_rate", 8),
            ("e.csv", Self.ecgFile(samples: []), "ecg_no_samples", 14),
            ("f.csv", Self.ecgFile(unit: "mV"), "ecg_unknown_unit", 14),
            ("g.csv", Self.ecgFile(samples: ["1", "nan", "2"]), "ecg_non_numeric_sample", 15),
            ("h.csv", Self.ecgFile(samples: ["1", String(repeating: "7", count: 5000)]), "ecg_line_too_long", 15),
            ("i.csv", "Name,\"Zebulon\nRecorded Date,2023-03-04 20:55:07 -0500\nSample Rate,512 hertz\nUnit,µV\n1\n2\n", "ecg_unclosed_quote", 1),
            ("j.csv", "Name,\"Zebulon\n" + String(repeating: "Quixote\n", count: 600) + "\"\nUnit,µV\n1\n", "ecg_line_too_long", 512),
        ]
        let dir = Support.temporaryDirectory()
        let zip = try Self.archive(dir, cases.map { ($0.file, $0.text) } + [("ok.csv", Self.ecgFile())])
        let out = dir + "/out"
        let run = try Support.runCLI(["run", zip, "--out", out, "--ecg-samples"])
        #expect(run.status == 0, "\(run.stderr)")
        let faults = try #require(try Self.manifest(out)["faults"] as? [String: Any])
        let first = try #require(faults["first"] as? [[String: Any]])
        #expect(faults["total"] as? Int == cases.count)
        for c in cases {
            let fault = first.first { ($0["entry"] as? String)?.hasSuffix("/" + c.file) == true }
            #expect(fault?["kind"] as? String == c.kind, "\(c.file): \(String(describing: fault))")
            #expect(fault?["line"] as? Int == c.line, "\(c.file): \(String(describing: fault))")
        }
        let table = try Support.readCSV(out + "/ecg.csv")
        #expect(table.rows.map { $0.last } == ["electrocardiograms/ok.csv"])
        #expect(try Support.readCSV(out + "/ecg_samples.csv").rows.count == 3)

        // inspect counts them as run does: the same number of malformed records.
        let inspect = try Support.runCLI(["inspect", zip, "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        #expect((report["counts"] as? [String: Any])?["malformed_records"] as? Int == cases.count, "\(inspect.stdout)")
        let text = try Support.runCLI(["inspect", zip])
        #expect(text.stdout.contains("malformed records: \(cases.count) "), "\(text.stdout)")

        // --strict: the first malformed file (entries are read in path order) stops the run.
        let strict = try Support.runCLI(["run", zip, "--out", dir + "/strict", "--strict"])
        #expect(strict.status != 0)
        let errors = strict.stderr.split(separator: "\n").filter { $0.contains("error") }
        #expect(errors.count == 1, "\(strict.stderr)")
        let line = String(errors.first ?? "")
        #expect(line.contains("entry apple_health_export/electrocardiograms/a.csv: line 16: sample is not a number (--strict)"), "\(line)")
        #expect(!line.contains("9.5x7") && !line.contains("Sinus"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/strict/ecg.csv"), "a failed run left outputs")
    }

    // MARK: ids

    /// Recordings of the same second get `-2`, `-3` in order of their files, whatever order the
    /// archive lists them in; ecg.csv is in time order.
    /// Two entries of one name (a malformed zip): each recording's samples come from its own
    /// entry.
    @Test func twoEntriesOfOneNameKeepTheirOwnSamples() throws {
        let dir = Support.temporaryDirectory()
        let zip = try Self.archive(
            dir,
            [
                ("ecg_1.csv", Self.ecgFile(samples: ["1", "2", "3"])),
                ("ecg_1.csv", Self.ecgFile(recorded: "2023-03-04 21:00:00 -0500", samples: ["4", "5"])),
            ])
        let run = try Support.runCLI(["run", zip, "--out", dir + "/out", "--ecg-samples", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let samples = try Support.readCSV(dir + "/out/ecg_samples.csv")
        #expect(samples.rows.map { $0[3] } == ["1", "2", "3", "4", "5"])
    }

    @Test func idsFollowTheRecordedTimeWithASuffixOnAClash() throws {
        let same = Self.ecgFile(recorded: "2023-03-04 20:55:07 -0500")
        let earlier = Self.ecgFile(recorded: "2023-03-04 19:00:00 -0800")   // 03:00:00Z the next day: later
        let files = [("x_2.csv", same), ("x.csv", same), ("x_1.csv", earlier), ("w.csv", same)]
        var tables: [[[String]]] = []
        for order in [files, files.reversed()] {
            let dir = Support.temporaryDirectory()
            let out = dir + "/out"
            let run = try Support.runCLI(["run", try Self.archive(dir, order), "--out", out, "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
            let table = try Support.readCSV(out + "/ecg.csv")
            tables.append(table.rows.map { [$0[0], $0[1], $0[2], $0[$0.count - 1]] })
        }
        #expect(
            tables[0] == [
                ["20230305T015507Z", "2023-03-05T01:55:07Z", "-05:00", "electrocardiograms/w.csv"],
                ["20230305T015507Z-2", "2023-03-05T01:55:07Z", "-05:00", "electrocardiograms/x.csv"],
                ["20230305T015507Z-3", "2023-03-05T01:55:07Z", "-05:00", "electrocardiograms/x_2.csv"],
                ["20230305T030000Z", "2023-03-05T03:00:00Z", "-08:00", "electrocardiograms/x_1.csv"],
            ])
        #expect(tables[0] == tables[1])
    }

    /// 10,000 recordings of one second get the base id, then `-2` … `-10000`, in order of their
    /// files; each row points back to its own recording, which is how `--ecg-samples` finds the
    /// entry to read again (copies of one file are equal recordings, told apart by that place).
    @Test func tenThousandRecordingsOfOneSecondGetIdsInFileOrder() throws {
        let recorded = try #require(Timestamp.parse("2023-03-04 20:55:07 -0500"))
        let recordings = (0..<10_000).reversed().map { i in
            ECGRecording(
                entry: "apple_health_export/electrocardiograms/ecg_\(String(format: "%05d", i)).csv", recorded: recorded,
                classification: "", symptoms: "", softwareVersion: "", device: "", sampleRateHz: 512, lead: "", unit: "µV",
                samples: i % 3 + 1)
        }
        let all = recordings + [recordings[0]]
        let rows = ECGOutputs.rows(all)
        #expect(rows.count == 10_001)
        #expect(rows.map { $0.id(of: all[$0.index]) } == ["20230305T015507Z"] + (2...10_001).map { "20230305T015507Z-\($0)" })
        let files = rows.map { ECGOutputs.file(of: all[$0.index], base: "apple_health_export/") }
        #expect(files.prefix(2) == ["electrocardiograms/ecg_00000.csv", "electrocardiograms/ecg_00001.csv"])
        // Every recording once; the copy of the last-listed one sorts right after it, with a
        // place of its own.
        #expect(Set(rows.map(\.index)) == Set(all.indices))
        #expect(rows[9_999].index == 0 && rows[10_000].index == 10_000)
        // A second recorded a second later starts again from the base id.
        let later = ECGRecording(
            entry: "a.csv", recorded: Timestamp(utcSeconds: recorded.utcSeconds + 1, offsetMinutes: 0), classification: "", symptoms: "",
            softwareVersion: "", device: "", sampleRateHz: 512, lead: "", unit: "µV", samples: 1)
        let mixed = [later, recordings[0], later, recordings[1]]
        #expect(
            ECGOutputs.rows(mixed).map { $0.id(of: mixed[$0.index]) } == [
                "20230305T015507Z", "20230305T015507Z-2", "20230305T015508Z", "20230305T015508Z-2",
            ])
    }

    // MARK: the decoder

    /// Header lines are CSV records: a quoted value may hold a comma, doubled quotes and line
    /// breaks. A quoted name over several lines is skipped whole, even where its lines look like
    /// a key or a sample; a kept value keeps its line break.
    @Test func aQuotedHeaderValueMaySpanLines() throws {
        let text = """
            Name,"Zebulon
            Classification,Quixote"
            Date of Birth,"Feb 29,
            1964"
            Recorded Date,2023-03-04 20:55:07 -0500
            "Classification","Sinus
            Rhythm, ""read"" twice"
            Symptoms,Fluttering " heartbeat
            Sample Rate,512 hertz
            Unit,µV
            1
            2

            """
        let decoder = ECGDecoder()
        var samples: [String] = []
        try Array(text.utf8).withUnsafeBytes { raw in try decoder.feed(ByteSpan(raw)) { samples.append($1.string) } }
        let recording = try decoder.finish(entry: "e") { samples.append($1.string) }
        #expect(recording.classification == "Sinus\nRhythm, \"read\" twice")
        #expect(recording.symptoms == "Fluttering \" heartbeat")   // a quote inside an unquoted value is text
        #expect(samples == ["1", "2"] && recording.samples == 2)
        // Each answer is taken before `#expect`, which cannot capture a nonescapable span.
        let cases: [(text: StaticString, inside: Bool, expected: Bool)] = [
            ("a,\"b", false, true), ("a,\"b\"\"c\"", false, false), ("a,b\"c", false, false),
            ("rest\",x", true, false), ("rest\"\",x", true, true),
        ]
        for c in cases {
            let ends = ECGDecoder.endsInsideQuotes(ByteSpan(c.text), startingInside: c.inside)
            #expect(ends == c.expected, "\(c.text)")
        }
    }

    /// Whatever the chunks the entry streams in (a line, a `µ` or a CRLF cut anywhere), the
    /// decoder reads the same recording and samples; a byte-order mark and CRLF line breaks are
    /// read as Apple's files are.
    @Test func chunkBoundariesLineBreaksAndAByteOrderMarkChangeNothing() throws {
        let text = Self.ecgFile(samples: (0..<50).map { "\(Double($0) * 1.25 - 20)" })
        func decode(_ bytes: [UInt8], chunk: Int) throws -> (ECGRecording, [String]) {
            let decoder = ECGDecoder()
            var samples: [String] = []
            var start = 0
            while start < bytes.count {
                let piece = Array(bytes[start..<min(start + chunk, bytes.count)])
                try piece.withUnsafeBytes { raw in try decoder.feed(ByteSpan(raw)) { samples.append($1.string) } }
                start += chunk
            }
            let recording = try decoder.finish(entry: "e") { samples.append($1.string) }
            return (recording, samples)
        }
        let (whole, samples) = try decode(Array(text.utf8), chunk: 1 << 20)
        #expect(whole.samples == 50 && samples.count == 50 && samples.first == "-20.0")
        #expect(whole.unit == "µV" && whole.device == "Watch6,7" && whole.sampleRateHz == 512 && whole.softwareVersion == "1.90")
        #expect(whole.recorded == Timestamp.parse("2023-03-04 20:55:07 -0500"))
        let variants = [
            Array(text.utf8), Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8), [0xEF, 0xBB, 0xBF] + Array(text.utf8),
            Array(text.dropLast().utf8),   // no line feed after the last sample
        ]
        for (index, bytes) in variants.enumerated() {
            for chunk in [1, 2, 3, 7, 64, 4096] {
                let (recording, read) = try decode(bytes, chunk: chunk)
                #expect(recording == whole && read == samples, "variant \(index), chunks of \(chunk)")
            }
        }
    }
}
