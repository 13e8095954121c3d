import HealthTrailArchive
import HealthTrailBase

/// Writes a table to an Apache Parquet file, row by row: flat OPTIONAL columns, GZIP pages,
/// strings dictionary-encoded, statistics per column chunk.
///
/// Rows are buffered column by column in typed arrays (no value is boxed or made a `String`)
/// and written as a row group once the buffered values reach `rowGroupBytes`, so memory stays
/// bounded however long the table is. Each column chunk is cut into data pages of about a MiB
/// of values, each page compressed on its own. The footer (schema, row groups, statistics) is
/// written by `close()`, which a complete file needs.
///
/// For each row, call one `append…` (or `appendNull`) per column, in any order, then `endRow()`.
/// Appending a value of the wrong kind for a column is a programming error and traps.
/// SAFETY (`chunkBox`, an `UncheckedBox`): the writer is used by one thread at a time, and no
/// access to the box's value starts while another is in progress (each is one call on one chunk).
@safe
package final class ParquetWriter {
    /// The footer's `created_by`.
    private let createdBy: String
    /// Rows ended so far.
    package var rows: Int { rowCount }

    private let path: String
    private let columns: [ParquetColumn]
    /// Each column's type, for the appends' checks (a `let`: read without an access check).
    private let types: [ParquetColumnType]
    /// The current row group's values, one chunk per column, in an `UncheckedBox`: every append
    /// updates it, and as a stored property it would cost a run-time exclusivity check each
    /// time. The writer is used from one thread and no access to the chunks starts another.
    private let chunkBox: UncheckedBox<[ParquetColumnChunk]>
    private let rowGroupBytes: Int
    private let out: OutputBuffer
    private let compressor: GzipCompressor
    private var rowCount = 0
    /// Rows in the row group being buffered.
    private var rowsInGroup = 0
    /// The file offset of the next byte written (`OutputBuffer` does not count them).
    private var position: Int64 = 0
    private var rowGroups: [ParquetRowGroupMetadata] = []
    /// The reused buffer each page is assembled in before compression.
    private var pageBody: [UInt8] = []
    /// Set by the first `endRow` that found a column with the wrong number of values: the
    /// buffered rows are then inconsistent, so every later `endRow` and `close` throws it.
    private var failure: InputError?
    private var closed = false
    /// Bytes of encoded values a data page holds at most (about): tests make it small to get
    /// many pages from few rows.
    package var pageValueBytes = 1 << 20

    /// Creates the file owner-only (0600, like every HealthTrail output) and writes the "PAR1" magic.
    /// - Parameters:
    ///   - columns: the table's columns, in order (at least one).
    ///   - rowGroupBytes: a row group is written once its buffered values reach this many bytes.
    ///   - compressionLevel: libdeflate's level for the GZIP pages (1–12; 1 is fastest).
    ///   - createdBy: the footer's `created_by`, `<application> version <version>`.
    package init(
        path: String, columns: [ParquetColumn], rowGroupBytes: Int = 16 << 20, compressionLevel: Int32 = 1,
        createdBy: String = "healthtrail"
    ) throws {
        self.createdBy = createdBy
        precondition(!columns.isEmpty, "ParquetWriter: a table needs at least one column")
        self.path = path
        self.columns = columns
        self.rowGroupBytes = Swift.max(1, rowGroupBytes)
        types = columns.map(\.type)
        unsafe chunkBox = UncheckedBox(columns.map(ParquetColumnChunk.init))
        compressor = try GzipCompressor(level: compressionLevel)
        out = try OutputBuffer(path: path)
        write(ParquetFormat.magic)
    }

    // MARK: Appending

    /// Appends a null to `column` in the current row.
    package func appendNull(_ column: Int) {
        unsafe chunkBox.value[column].appendNull()
    }

    /// Appends an `.int64` value, or a `.timestampMicrosUTC` one (microseconds since
    /// 1970-01-01T00:00:00Z), to `column` in the current row.
    package func append(_ column: Int, int64 value: Int64) {
        precondition(types[column] == .int64 || types[column] == .timestampMicrosUTC, "ParquetWriter: not an int64 column")
        unsafe chunkBox.value[column].append(int64: value)
    }

    /// Appends a `.date` value (days since 1970-01-01) to `column` in the current row.
    package func append(_ column: Int, date days: Int32) {
        precondition(types[column] == .date, "ParquetWriter: not a date column")
        unsafe chunkBox.value[column].append(int32: days)
    }

    /// Appends a `.double` value to `column` in the current row.
    package func append(_ column: Int, double value: Double) {
        precondition(types[column] == .double, "ParquetWriter: not a double column")
        unsafe chunkBox.value[column].append(double: value)
    }

    /// Appends a `.boolean` value to `column` in the current row.
    package func append(_ column: Int, bool value: Bool) {
        precondition(types[column] == .boolean, "ParquetWriter: not a boolean column")
        unsafe chunkBox.value[column].append(bool: value)
    }

    /// Appends a `.string` value (UTF-8 bytes, copied before this returns) to `column` in the
    /// current row.
    package func append(_ column: Int, string value: ByteSpan) {
        precondition(types[column] == .string, "ParquetWriter: not a string column")
        unsafe chunkBox.value[column].append(string: value)
    }

    /// Ends the row: every column must have had exactly one append since the last `endRow`,
    /// else this throws (and the writer is unusable: later rows and `close` throw too). Writes
    /// a row group once the buffered values reach `rowGroupBytes`.
    package func endRow() throws {
        if let failure { throw failure }
        let expected = rowsInGroup + 1
        var buffered = 0
        for index in columns.indices {
            let count = unsafe chunkBox.value[index].rowCount
            if count != expected {
                let error = InputError(
                    file: path, "Parquet row \(rowCount + 1): column \(columns[index].name) got \(count - rowsInGroup) values, not 1")
                failure = error
                throw error
            }
            unsafe buffered += chunkBox.value[index].bufferedBytes
        }
        rowsInGroup = expected
        rowCount += 1
        if buffered >= rowGroupBytes { try writeRowGroup() }
    }

    /// Writes the last row group, then the footer (FileMetaData, its length, "PAR1"); syncs
    /// and closes the file, which is complete only if this returns.
    package func close() throws {
        guard !closed else { return }
        closed = true
        if let failure {
            try? out.close(syncing: false)
            throw failure
        }
        if rowsInGroup > 0 { try writeRowGroup() }
        let footer = ParquetFileMetadata(
            columns: columns, rowGroups: rowGroups, rowCount: Int64(rowCount), createdBy: createdBy
        ).encoded()
        write(footer)
        write(ParquetPlainEncoding.bytes(of: UInt32(footer.count)))
        write(ParquetFormat.magic)
        try out.close(syncing: true)
    }

    // MARK: Row groups and pages

    /// Writes the buffered rows as a row group (each column's chunk in turn) and empties the
    /// chunks for the next one.
    private func writeRowGroup() throws {
        var metadata: [ParquetColumnChunkMetadata] = []
        metadata.reserveCapacity(columns.count)
        for index in columns.indices {
            unsafe metadata.append(try writeColumnChunk(chunkBox.value[index]))
            unsafe chunkBox.value[index].removeAll()
        }
        rowGroups.append(ParquetRowGroupMetadata(columns: metadata, rowCount: Int64(rowsInGroup)))
        rowsInGroup = 0
    }

    /// Writes one column chunk: its dictionary page if it has one, then its data pages.
    private func writeColumnChunk(_ chunk: ParquetColumnChunk) throws -> ParquetColumnChunkMetadata {
        var metadata = ParquetColumnChunkMetadata(
            column: chunk.column, encodings: chunk.encodings, valueCount: Int64(chunk.rowCount),
            totalUncompressedSize: 0, totalCompressedSize: 0, dataPageOffset: 0, dictionaryPageOffset: nil,
            statistics: chunk.statistics())
        if chunk.usesDictionary {
            metadata.dictionaryPageOffset = position
            try writePage(chunk.dictionary.plainEncoded(), kind: .dictionary(entryCount: chunk.dictionary.count), into: &metadata)
        }
        metadata.dataPageOffset = position
        for page in chunk.pageRanges(targetBytes: pageValueBytes) {
            // A v1 data page: the definition levels (bit width 1, length-prefixed), then the
            // values; no repetition levels, as the columns are flat.
            pageBody.removeAll(keepingCapacity: true)
            RLEHybridEncoder.encodeWithLength(chunk.definitionLevels[page.rows], bitWidth: 1, into: &pageBody)
            chunk.appendValues(of: page, to: &pageBody)
            try writePage(pageBody, kind: .data(valueCount: page.rows.count, encoding: chunk.valueEncoding), into: &metadata)
        }
        return metadata
    }

    /// Compresses a page's bytes and writes its header and them; adds both to the chunk's sizes.
    private func writePage(_ body: [UInt8], kind: ParquetPageHeader.Kind, into metadata: inout ParquetColumnChunkMetadata) throws {
        let compressed = try compressor.compress(body)
        let header = ParquetPageHeader(kind: kind, uncompressedSize: body.count, compressedSize: compressed.count).encoded()
        write(header)
        write(compressed)
        metadata.totalUncompressedSize += Int64(header.count + body.count)
        metadata.totalCompressedSize += Int64(header.count + compressed.count)
    }

    /// Appends bytes to the file and counts them.
    private func write(_ bytes: [UInt8]) {
        ByteSpan.withBytes(ofEach: bytes) { out.append($0) }
        position += Int64(bytes.count)
    }
}
