import HealthTrailArchive
import HealthTrailBase

/// Reads an Apple Watch ECG file as it streams: the header's `Key,Value` lines, then one
/// sample per line.
///
/// ```
/// Name,…
/// Date of Birth,"Jun 12, 2006"
/// Recorded Date,2023-03-04 20:55:07 -0500
/// Classification,Sinus Rhythm
/// Symptoms,
/// Software Version,1.90
/// Device,"Watch6,7"
/// Sample Rate,512 hertz
///
/// Lead,Lead I
/// Unit,µV
///
/// -107.825
/// ```
///
/// Only the keys `ECGRecording` has are read, by allowlist: the name, the date of birth and any
/// key a later export adds are skipped without their value ever becoming text. Header lines
/// are CSV records (RFC 4180): a quoted value may hold commas, doubled quotes and line breaks,
/// so a name written over two lines never has its second line read as a key. Blank lines
/// between records are skipped anywhere. A line that starts like a number (a digit, a sign or a point) starts
/// the samples; after that every line must be one finite number. A problem stops the file at
/// its first `ECGMalformed`, which names the line, never what is on it.
package final class ECGDecoder {
    /// The longest line read: a header line is a few dozen bytes, a sample about ten.
    package static let maxLineBytes = 4096

    private var lines = LineSplitter(maxLineBytes: ECGDecoder.maxLineBytes)
    private var recorded: Timestamp?
    private var sampleRate: Double?
    private var fields = HeaderFields()
    /// The line of the first sample, 0 before it.
    private var firstSampleLine = 0
    /// A header record whose quoted value goes on past its first line: its bytes so far (lines
    /// joined by a line feed) and the line it began on.
    private var openRecord: [UInt8]?
    private var openRecordLine = 0
    private var samples = 0

    /// The header keys whose text is kept as written, and where; the first line of a key wins.
    private static let textFields: [(key: StaticString, field: WritableKeyPath<HeaderFields, String?> & Sendable)] = [
        ("Classification", \.classification), ("Symptoms", \.symptoms), ("Software Version", \.softwareVersion),
        ("Device", \.device), ("Lead", \.lead), ("Unit", \.unit),
    ]

    /// The text values the header gives, by key.
    private struct HeaderFields {
        var classification: String?
        var symptoms: String?
        var softwareVersion: String?
        var device: String?
        var lead: String?
        var unit: String?
    }

    package init() {}

    /// Reads `chunk`, handing each sample to `onSample` with its 0-based index and its text as
    /// written (a span that cannot leave the call); throws `ECGMalformed` at the first problem.
    package func feed(_ chunk: ByteSpan, onSample: (Int, ByteSpan) -> Void) throws {
        try lines.feed(chunk) { outcome, number in try read(outcome, line: number, onSample) }
    }

    /// Ends the file: the recording its header and samples describe, or why there is none.
    package func finish(entry: String, onSample: (Int, ByteSpan) -> Void) throws -> ECGRecording {
        try lines.finish { outcome, number in try read(outcome, line: number, onSample) }
        let end = lines.line - 1
        guard openRecord == nil else {
            throw ECGMalformed(line: openRecordLine, kind: "ecg_unclosed_quote", "a quoted header value is never closed")
        }
        guard samples > 0 else { throw ECGMalformed(line: max(end, 1), kind: "ecg_no_samples", "no samples") }
        let headerEnd = firstSampleLine
        guard let recorded else {
            throw ECGMalformed(line: headerEnd, kind: "ecg_missing_recorded_date", "no Recorded Date line before the samples")
        }
        guard let sampleRate else {
            throw ECGMalformed(line: headerEnd, kind: "ecg_missing_sample_rate", "no Sample Rate line before the samples")
        }
        guard let unit = fields.unit else {
            throw ECGMalformed(line: headerEnd, kind: "ecg_missing_unit", "no Unit line before the samples")
        }
        return ECGRecording(
            entry: entry, recorded: recorded, classification: fields.classification ?? "", symptoms: fields.symptoms ?? "",
            softwareVersion: fields.softwareVersion ?? "", device: fields.device ?? "", sampleRateHz: sampleRate,
            lead: fields.lead ?? "", unit: unit, samples: samples)
    }

    private func read(_ outcome: LineSplitter.Outcome, line number: Int, _ onSample: (Int, ByteSpan) -> Void) throws {
        guard case .line(let line) = outcome else {
            throw ECGMalformed(line: number, kind: "ecg_line_too_long", "line longer than \(Self.maxLineBytes) bytes")
        }
        if openRecord != nil {
            try continueRecord(line, number)
            return
        }
        // A byte-order mark before the first key is not part of it.
        let bom = number == 1 && line.count >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF
        let text = Self.trimmed(bom ? line.dropFirst(3) : line)
        guard text.count > 0 else { return }
        if firstSampleLine == 0 && !Self.startsANumber(text[0]) {
            if Self.endsInsideQuotes(text, startingInside: false) {
                openRecord = text.bytes
                openRecordLine = number
            } else {
                try header(text, number)
            }
            return
        }
        guard let value = NumberText.double(text), value.isFinite else {
            throw ECGMalformed(line: number, kind: "ecg_non_numeric_sample", "sample is not a number")
        }
        if firstSampleLine == 0 {
            firstSampleLine = number
            // The unit must be known before a sample is handed on as microvolts.
            if let unit = fields.unit, !Self.microvoltSymbols.contains(unit) {
                throw ECGMalformed(line: number, kind: "ecg_unknown_unit", "Unit is not µV")
            }
        }
        onSample(samples, text)
        samples += 1
    }

    /// Adds a line to the open header record, and reads the record once its quote closes. The
    /// record as a whole is bounded like a line, so an unclosed quote cannot grow without end.
    private func continueRecord(_ line: ByteSpan, _ number: Int) throws {
        guard var record = openRecord else { return }
        openRecord = nil
        guard record.count + 1 + line.count <= Self.maxLineBytes else {
            throw ECGMalformed(line: number, kind: "ecg_line_too_long", "header value longer than \(Self.maxLineBytes) bytes")
        }
        let inside = Self.endsInsideQuotes(line, startingInside: true)
        record.append(0x0A)
        line.append(to: &record)
        if inside {
            openRecord = record
            return
        }
        let whole = OwnedBytes(copying: record)
        try withExtendedLifetime(whole) { try header(Self.trimmed(whole.span), openRecordLine) }
    }

    /// Whether a CSV line, begun inside a quoted field or not, ends inside one (RFC 4180): a
    /// quote opens a field only as its first character (spaces before it aside), and inside
    /// quotes a doubled quote is one quote. A quote inside an unquoted value is text.
    static func endsInsideQuotes(_ line: ByteSpan, startingInside: Bool) -> Bool {
        var inside = startingInside, atFieldStart = !startingInside
        var i = 0
        while i < line.count {
            let byte = line[i]
            if inside {
                if byte == 0x22 {
                    if i + 1 < line.count && line[i + 1] == 0x22 {
                        i += 2
                        continue
                    }
                    inside = false
                }
            } else if byte == 0x2C {
                atFieldStart = true
            } else if !(atFieldStart && (byte == 0x20 || byte == 0x09)) {
                inside = atFieldStart && byte == 0x22
                atFieldStart = false
            }
            i += 1
        }
        return inside
    }

    /// The ways `µV` is written: with the micro sign (Apple's) or the Greek mu.
    static let microvoltSymbols: Set<String> = ["\u{B5}V", "\u{3BC}V"]

    /// One header line: the value of a known key kept, any other line skipped unread.
    private func header(_ line: ByteSpan, _ number: Int) throws {
        let comma = Self.firstSeparator(line)
        let key = Self.unquoted(Self.trimmed(line.prefix(comma)))
        let value = Self.trimmed(line.dropFirst(comma + 1))
        if key.equals("Recorded Date") {
            guard recorded == nil else { return }
            guard let t = Timestamp.parse(Self.trimmed(Self.unquoted(value))) else {
                throw ECGMalformed(line: number, kind: "ecg_bad_date", "Recorded Date is not a date")
            }
            recorded = t
        } else if key.equals("Sample Rate") {
            guard sampleRate == nil else { return }
            guard let rate = Self.hertz(Self.trimmed(Self.unquoted(value))) else {
                throw ECGMalformed(line: number, kind: "ecg_bad_sample_rate", "Sample Rate is not a number of hertz")
            }
            sampleRate = rate
        } else if let field = Self.textFields.first(where: { key.equals($0.key) })?.field, fields[keyPath: field] == nil {
            fields[keyPath: field] = Self.text(value)
        }
        // `Name`, `Date of Birth` and unknown keys: nothing is read.
    }

    /// Where a header record's key ends: its first comma outside quotes, or its end.
    static func firstSeparator(_ line: ByteSpan) -> Int {
        var i = 0
        while i < line.count && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
        if i < line.count && line[i] == 0x22 {
            i += 1
            while i < line.count {
                if line[i] == 0x22 {
                    guard i + 1 < line.count && line[i + 1] == 0x22 else { break }
                    i += 1
                }
                i += 1
            }
        }
        while i < line.count && line[i] != 0x2C { i += 1 }
        return i
    }

    /// `512 hertz`, `512 Hz`, `512` → 512; nil for anything else, or a rate outside 1…100,000.
    static func hertz(_ text: ByteSpan) -> Double? {
        var end = 0
        while end < text.count && text[end] != 0x20 { end += 1 }
        guard let rate = NumberText.double(text.prefix(end)), rate >= 1, rate <= 100_000 else { return nil }
        let unit = trimmed(text.dropFirst(end))
        let known = unit.count == 0 || unit.equals("hertz") || unit.equals("Hertz") || unit.equals("Hz") || unit.equals("hz")
        return known ? rate : nil
    }

    /// A field's text: `"Watch6,7"` → `Watch6,7`, a doubled quote inside quotes read as one.
    static func text(_ field: ByteSpan) -> String {
        guard field.count >= 2, field[0] == 0x22 else { return field.string }
        var bytes: [UInt8] = []
        var i = 1
        while i < field.count {
            if field[i] == 0x22 {
                guard i + 1 < field.count && field[i + 1] == 0x22 else { break }
                i += 1
            }
            bytes.append(field[i])
            i += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A field without its quotes, for values that hold none (a date, a rate): `"512 hertz"` →
    /// `512 hertz`, cut at the closing quote.
    @_lifetime(copy field)
    static func unquoted(_ field: ByteSpan) -> ByteSpan {
        guard field.count >= 2, field[0] == 0x22 else { return field }
        var end = 1
        while end < field.count {
            if field[end] == 0x22 {
                if end + 1 < field.count && field[end + 1] == 0x22 {
                    end += 2
                    continue
                }
                break
            }
            end += 1
        }
        return field.dropFirst(1).prefix(end - 1)
    }

    /// `line` without spaces and tabs at either end.
    @_lifetime(copy line)
    static func trimmed(_ line: ByteSpan) -> ByteSpan {
        var start = 0, end = line.count
        while start < end && (line[start] == 0x20 || line[start] == 0x09) { start += 1 }
        while end > start && (line[end - 1] == 0x20 || line[end - 1] == 0x09) { end -= 1 }
        return line.dropFirst(start).prefix(end - start)
    }

    /// Whether a line starting with `byte` is a sample: a digit, a sign or a decimal point.
    static func startsANumber(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10 || byte == 0x2D || byte == 0x2B || byte == 0x2E
    }
}
