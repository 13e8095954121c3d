/// Cutting a buffered column chunk into data pages, encoding each page's values, and the
/// chunk's statistics: the work done once per row group, when it is flushed.
extension ParquetColumnChunk {
    /// The encoding of the chunk's data pages' values.
    var valueEncoding: Int32 { usesDictionary ? ParquetFormat.Encoding.rleDictionary : ParquetFormat.Encoding.plain }

    /// Every encoding the chunk's pages use (the dictionary page's PLAIN, the values', RLE for
    /// the levels), for `ColumnMetaData.encodings`.
    var encodings: [Int32] {
        usesDictionary
            ? [ParquetFormat.Encoding.plain, ParquetFormat.Encoding.rle, ParquetFormat.Encoding.rleDictionary]
            : [ParquetFormat.Encoding.plain, ParquetFormat.Encoding.rle]
    }

    /// Bits per dictionary number: enough for the largest; at least 1, which every reader
    /// accepts (a width of 0, for a single entry, is legal but less well trodden).
    var dictionaryBitWidth: Int { Swift.max(1, Int.bitWidth - (dictionary.count - 1).leadingZeroBitCount) }

    /// The chunk's rows cut into consecutive pages of about `targetBytes` bytes of encoded
    /// values each, so that no reader needs a page larger than that in memory. A chunk with
    /// no rows still gets one (empty) page.
    func pageRanges(targetBytes: Int) -> [ParquetPageRange] {
        let fixedWidth: Int
        switch column.type {
        case .int64, .timestampMicrosUTC, .double: fixedWidth = 8
        case .date: fixedWidth = 4
        case .boolean: fixedWidth = 1   // an eighth in fact; pages of booleans stay smaller
        case .string: fixedWidth = usesDictionary ? 4 : 0   // numbers: at most 4 bytes each
        }
        var ranges: [ParquetPageRange] = []
        var row = 0, value = 0, byte = 0
        var start = ParquetPageRange(rows: 0..<0, values: 0..<0, plainBytes: 0..<0)
        var pageBytes = 0
        let levels = definitionLevels
        while row < levels.count {
            if levels[row] != 0 {
                if fixedWidth > 0 {
                    pageBytes += fixedWidth
                } else {
                    let length = plainStringLength(at: byte)
                    byte += 4 + length
                    pageBytes += 4 + length
                }
                value += 1
            }
            row += 1
            // A level costs at most a bit; counting it keeps pages of mostly nulls bounded too.
            pageBytes += row & 7 == 0 ? 1 : 0
            if pageBytes >= targetBytes {
                ranges.append(
                    ParquetPageRange(
                        rows: start.rows.lowerBound..<row, values: start.values.lowerBound..<value,
                        plainBytes: start.plainBytes.lowerBound..<byte))
                start = ParquetPageRange(rows: row..<row, values: value..<value, plainBytes: byte..<byte)
                pageBytes = 0
            }
        }
        if row > start.rows.lowerBound || ranges.isEmpty {
            ranges.append(
                ParquetPageRange(
                    rows: start.rows.lowerBound..<row, values: start.values.lowerBound..<value,
                    plainBytes: start.plainBytes.lowerBound..<byte))
        }
        return ranges
    }

    /// The length prefix of the PLAIN string whose prefix starts at `offset` in `plainStrings`.
    private func plainStringLength(at offset: Int) -> Int {
        Int(plainStrings[offset]) | Int(plainStrings[offset + 1]) << 8 | Int(plainStrings[offset + 2]) << 16
            | Int(plainStrings[offset + 3]) << 24
    }

    /// Appends the values of `page`, encoded as `valueEncoding` says, to `out`.
    func appendValues(of page: ParquetPageRange, to out: inout [UInt8]) {
        switch column.type {
        case .int64, .timestampMicrosUTC: ParquetPlainEncoding.append(int64Values[page.values], to: &out)
        case .date: ParquetPlainEncoding.append(int32Values[page.values], to: &out)
        case .double: ParquetPlainEncoding.append(doubleValues[page.values], to: &out)
        case .boolean: ParquetPlainEncoding.append(boolValues[page.values], to: &out)
        case .string:
            if usesDictionary {
                // RLE_DICTIONARY: the bit width in one byte, then the numbers in the hybrid
                // encoding without a length prefix (the page's end bounds them).
                out.append(UInt8(dictionaryBitWidth))
                if !page.values.isEmpty {
                    RLEHybridEncoder.encode(dictionaryIndices[page.values], bitWidth: dictionaryBitWidth, into: &out)
                }
            } else {
                out.append(contentsOf: plainStrings[page.plainBytes])
            }
        }
    }

    /// The chunk's null count and the least and greatest of its values in the type's order
    /// (signed for numbers and dates, false < true, unsigned bytes for strings; NaN left out).
    func statistics() -> ParquetStatistics {
        var statistics = ParquetStatistics(nullCount: Int64(nullCount))
        switch column.type {
        case .int64, .timestampMicrosUTC:
            if let minimum = int64Values.min(), let maximum = int64Values.max() {
                statistics.minimum = ParquetPlainEncoding.bytes(of: minimum)
                statistics.maximum = ParquetPlainEncoding.bytes(of: maximum)
            }
        case .date:
            if let minimum = int32Values.min(), let maximum = int32Values.max() {
                statistics.minimum = ParquetPlainEncoding.bytes(of: minimum)
                statistics.maximum = ParquetPlainEncoding.bytes(of: maximum)
            }
        case .double:
            var minimum = Double.infinity, maximum = -Double.infinity
            var nanCount: Int64 = 0
            for value in doubleValues {
                if value.isNaN {
                    nanCount += 1
                } else {
                    minimum = Swift.min(minimum, value)
                    maximum = Swift.max(maximum, value)
                }
            }
            statistics.nanCount = nanCount
            if Int64(doubleValues.count) > nanCount {
                // parquet.thrift: a zero bound is written -0.0 as a minimum and +0.0 as a maximum,
                // as the order does not tell the two apart.
                if minimum == 0 { minimum = -0.0 }
                if maximum == 0 { maximum = 0.0 }
                statistics.minimum = ParquetPlainEncoding.bytes(of: minimum.bitPattern)
                statistics.maximum = ParquetPlainEncoding.bytes(of: maximum.bitPattern)
            }
        case .boolean:
            if !boolValues.isEmpty {
                let anyFalse = boolValues.contains(false), anyTrue = boolValues.contains(true)
                statistics.minimum = [anyFalse ? 0 : 1]
                statistics.maximum = [anyTrue ? 1 : 0]
            }
        case .string:
            var minimum: ArraySlice<UInt8>?, maximum: ArraySlice<UInt8>?
            let consider = { (value: ArraySlice<UInt8>) in
                if minimum.map({ value.lexicographicallyPrecedes($0) }) ?? true { minimum = value }
                if maximum.map({ $0.lexicographicallyPrecedes(value) }) ?? true { maximum = value }
            }
            if usesDictionary {
                // Every entry is used by some row of the chunk, so the entries' bounds are its.
                for index in 0..<dictionary.count { consider(dictionary.entry(index)) }
            } else {
                var offset = 0
                while offset < plainStrings.count {
                    let length = plainStringLength(at: offset)
                    consider(plainStrings[(offset + 4)..<(offset + 4 + length)])
                    offset += 4 + length
                }
            }
            statistics.minimum = minimum.map(Array.init)
            statistics.maximum = maximum.map(Array.init)
        }
        return statistics
    }
}
