import HealthTrailArchive
import HealthTrailBase

/// Parquet's PLAIN encoding (Encodings.md, PLAIN = 0): fixed-width numbers little-endian,
/// booleans one bit each (least significant first), byte arrays each after a 4-byte
/// little-endian length. Statistics hold single values in the same form.
enum ParquetPlainEncoding {
    /// Appends a byte array's 4-byte little-endian length prefix.
    @inline(__always)
    static func appendLength(_ length: Int, to out: inout [UInt8]) {
        let value = UInt32(truncatingIfNeeded: length)
        out.append(UInt8(truncatingIfNeeded: value))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Appends the values little-endian. The values are first made little-endian (a no-op on
    /// every platform Swift runs on today), then copied as one block of bytes.
    static func append(_ values: ArraySlice<Int64>, to out: inout [UInt8]) {
        let littleEndian = values.map { $0.littleEndian }
        ByteSpan.withBytes(ofEach: littleEndian) { $0.append(to: &out) }
    }

    /// Appends the values little-endian, as the `Int64` version does.
    static func append(_ values: ArraySlice<Int32>, to out: inout [UInt8]) {
        let littleEndian = values.map { $0.littleEndian }
        ByteSpan.withBytes(ofEach: littleEndian) { $0.append(to: &out) }
    }

    /// Appends the doubles as their IEEE 754 bit patterns, little-endian.
    static func append(_ values: ArraySlice<Double>, to out: inout [UInt8]) {
        let littleEndian = values.map { $0.bitPattern.littleEndian }
        ByteSpan.withBytes(ofEach: littleEndian) { $0.append(to: &out) }
    }

    /// Appends the booleans bit-packed, eight a byte, the first in the least significant bit;
    /// the last byte's unused bits are zero.
    static func append(_ values: ArraySlice<Bool>, to out: inout [UInt8]) {
        var byte: UInt8 = 0
        var bit: UInt8 = 0
        for value in values {
            if value { byte |= 1 << bit }
            bit += 1
            if bit == 8 {
                out.append(byte)
                byte = 0
                bit = 0
            }
        }
        if bit > 0 { out.append(byte) }
    }

    /// One value's PLAIN bytes, as `Statistics.min_value` and `max_value` hold it.
    static func bytes<Value: FixedWidthInteger>(of value: Value) -> [UInt8] {
        (0..<(Value.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
