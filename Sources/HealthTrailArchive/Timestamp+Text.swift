import HealthTrailBase

/// Timestamps written as text into output slots: the formats every output file uses.
/// Inlinable: CSVWriter (HealthTrailWrite) writes a date or an offset into most rows.
/// SAFETY: every write lies inside the slot (its subscript checks the index), and the caller
/// hands a slot still valid (reserved and not yet passed by another append), or one of
/// `OutputSlot.bytes(count:)`, valid during its closure.
extension Timestamp {
    /// Writes `2024-01-02T15:31:22Z` into a slot of 20 bytes.
    @inlinable @inline(__always)
    package static func writeUTC(_ seconds: Int64, to out: OutputSlot) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = Int(seconds - days * 86_400)
        let (y, m, d) = civilFromDays(days)
        unsafe out.putFourDigits(y, at: 0); unsafe out[4] = 0x2D; unsafe out.putTwoDigits(m, at: 5); unsafe out[7] = 0x2D;
        unsafe out.putTwoDigits(d, at: 8)
        unsafe out[10] = 0x54
        unsafe out.putTwoDigits(rest / 3600, at: 11); unsafe out[13] = 0x3A; unsafe out.putTwoDigits(rest / 60 % 60, at: 14); unsafe out[16] = 0x3A
        unsafe out.putTwoDigits(rest % 60, at: 17); unsafe out[19] = 0x5A
    }

    /// Writes `+01:00` / `-08:00` into a slot of 6 bytes.
    @inlinable @inline(__always)
    package static func writeOffset(_ minutes: Int32, to out: OutputSlot) {
        let a = Int(abs(minutes))
        unsafe out[0] = minutes < 0 ? 0x2D : 0x2B
        unsafe out.putTwoDigits(a / 60, at: 1); unsafe out[3] = 0x3A; unsafe out.putTwoDigits(a % 60, at: 4)
    }

    /// Writes the local calendar date `2024-01-02` of `localSeconds` into a slot of 10 bytes.
    @inlinable @inline(__always)
    package static func writeDate(localSeconds: Int64, to out: OutputSlot) {
        let (y, m, d) = civilFromDays(day(ofLocalSeconds: localSeconds))
        unsafe out.putFourDigits(y, at: 0); unsafe out[4] = 0x2D; unsafe out.putTwoDigits(m, at: 5); unsafe out[7] = 0x2D;
        unsafe out.putTwoDigits(d, at: 8)
    }

    /// `2024-01-02T15:31:22Z`.
    package var utcString: String {
        unsafe String(decoding: OutputSlot.bytes(count: 20) { unsafe Timestamp.writeUTC(utcSeconds, to: $0) }, as: UTF8.self)
    }

    /// `+01:00`.
    package var offsetString: String {
        unsafe String(decoding: OutputSlot.bytes(count: 6) { unsafe Timestamp.writeOffset(offsetMinutes, to: $0) }, as: UTF8.self)
    }

    /// The local calendar date, `2024-01-02`.
    package var localDateString: String {
        unsafe String(decoding: OutputSlot.bytes(count: 10) { unsafe Timestamp.writeDate(localSeconds: localSeconds, to: $0) }, as: UTF8.self)
    }
}
