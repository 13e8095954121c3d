/// The part of a column chunk one data page holds: its rows, the values among them (nulls
/// have none) and, for PLAIN strings, those values' bytes in the chunk's `plainStrings`.
struct ParquetPageRange {
    var rows: Range<Int>
    var values: Range<Int>
    var plainBytes: Range<Int>
}
