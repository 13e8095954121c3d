/// Parquet's run-length / bit-packing hybrid (Encodings.md, RLE = 3), which carries the
/// definition levels and the dictionary indices of every data page.
///
/// A run of 8 or more equal values becomes one RLE run (its length, then the value once);
/// anything else is bit-packed 8 values at a time, least significant bit first, in runs of at
/// most 63 groups so that each run's header is one byte. Only the data's final group is padded
/// (with zeros): a bit-packed run ends at a group boundary, which is where an RLE run may begin.
enum RLEHybridEncoder {
    /// The longest bit-packed run, in groups of 8 values: (63 << 1) | 1 still fits one byte.
    static let maximumGroupsPerRun = 63

    /// Appends the encoding of `values` (each below 2^bitWidth) to `out`, with no length prefix.
    /// - Parameter bitWidth: 1...32.
    static func encode<Value: FixedWidthInteger>(_ values: ArraySlice<Value>, bitWidth: Int, into out: inout [UInt8]) {
        precondition(bitWidth >= 1 && bitWidth <= 32, "RLEHybridEncoder: bit width out of range")
        let end = values.endIndex
        var i = values.startIndex
        while i < end {
            let run = runLength(values, from: i, limit: end - i)
            if run >= 8 {
                appendRLERun(value: values[i], count: run, bitWidth: bitWidth, into: &out)
                i += run
                continue
            }
            // Bit-packed groups until a run of 8 equal values starts (or the cap, or the end).
            let headerIndex = out.count
            out.append(0)
            var groups = 0
            repeat {
                appendGroup(values, from: i, end: end, bitWidth: bitWidth, into: &out)
                i = Swift.min(i + 8, end)
                groups += 1
            } while groups < maximumGroupsPerRun && i < end && runLength(values, from: i, limit: 8) < 8
            out[headerIndex] = UInt8(groups << 1 | 1)
        }
    }

    /// Appends the length-prefixed encoding (4 bytes little-endian, then the runs), as data
    /// page v1 stores its definition levels.
    static func encodeWithLength<Value: FixedWidthInteger>(_ values: ArraySlice<Value>, bitWidth: Int, into out: inout [UInt8]) {
        let lengthIndex = out.count
        out.append(contentsOf: [0, 0, 0, 0])
        encode(values, bitWidth: bitWidth, into: &out)
        let length = UInt32(out.count - lengthIndex - 4)
        for k in 0..<4 { out[lengthIndex + k] = UInt8(truncatingIfNeeded: length >> (8 * k)) }
    }

    /// How many values from `start` equal the one there, counting at most `limit`.
    @inline(__always)
    private static func runLength<Value: FixedWidthInteger>(_ values: ArraySlice<Value>, from start: Int, limit: Int) -> Int {
        let first = values[start]
        let end = Swift.min(values.endIndex, start + limit)
        var j = start + 1
        while j < end && values[j] == first { j += 1 }
        return j - start
    }

    /// An RLE run: header `count << 1` as a varint, then the value in ⌈bitWidth / 8⌉ bytes.
    private static func appendRLERun<Value: FixedWidthInteger>(value: Value, count: Int, bitWidth: Int, into out: inout [UInt8]) {
        var header = UInt64(count) << 1
        while header >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: header) | 0x80)
            header >>= 7
        }
        out.append(UInt8(header))
        let wide = UInt64(truncatingIfNeeded: value)
        for k in 0..<((bitWidth + 7) / 8) { out.append(UInt8(truncatingIfNeeded: wide >> (8 * k))) }
    }

    /// Eight values from `start` (zeros past `end`) packed into `bitWidth` bytes, least
    /// significant bit first.
    @inline(__always)
    private static func appendGroup<Value: FixedWidthInteger>(
        _ values: ArraySlice<Value>, from start: Int, end: Int, bitWidth: Int, into out: inout [UInt8]
    ) {
        // Fewer than 8 bits wait in the accumulator between values, and a value has at most 32,
        // so it never overflows; 8 values of bitWidth bits are a whole number of bytes.
        var accumulator: UInt64 = 0
        var bits = 0
        for j in start..<(start + 8) {
            let value = j < end ? UInt64(truncatingIfNeeded: values[j]) : 0
            accumulator |= value << UInt64(bits)
            bits += bitWidth
            while bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                bits -= 8
            }
        }
    }
}
