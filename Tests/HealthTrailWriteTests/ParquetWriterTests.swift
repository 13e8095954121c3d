import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailTestSupport
import HealthTrailWrite
import Testing

/// `ParquetWriter`'s files read back by two independent readers, pyarrow (Arrow's C++ reader)
/// and DuckDB (its own reader), value by value against what the test appended; pyarrow's view
/// of the footer (row groups, statistics, logical types) against statistics the test computes;
/// and each page's header and GZIP body checked by a page walker written from the spec in Python.
@Suite struct ParquetWriterTests {
    /// Whether python3 can import both readers here.
    static let readersAvailable: Bool = {
        (try? Support.runProgram("/usr/bin/env", ["python3", "-c", "import pyarrow, duckdb"]).status) == 0
    }()

    /// One appended value.
    enum Cell: Equatable {
        case null
        case int(Int64)
        case date(Int32)
        case double(Double)
        case bool(Bool)
        case string(String)
    }

    /// The test's own seeded generator (SplitMix64), so a failure reproduces.
    struct SeededRandom {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    // MARK: Writing

    /// Writes `rows` (one cell per column) through a `ParquetWriter`.
    static func write(
        _ rows: [[Cell]], columns: [ParquetColumn], to path: String, rowGroupBytes: Int = 16 << 20, pageValueBytes: Int = 1 << 20
    ) throws {
        let writer = try ParquetWriter(path: path, columns: columns, rowGroupBytes: rowGroupBytes)
        writer.pageValueBytes = pageValueBytes
        for row in rows {
            for (column, cell) in row.enumerated() {
                switch cell {
                case .null: writer.appendNull(column)
                case .int(let value): writer.append(column, int64: value)
                case .date(let days): writer.append(column, date: days)
                case .double(let value): writer.append(column, double: value)
                case .bool(let value): writer.append(column, bool: value)
                case .string(let text): ByteSpan.withUTF8(text) { writer.append(column, string: $0) }
                }
            }
            try writer.endRow()
        }
        #expect(writer.rows == rows.count)
        try writer.close()
    }

    // MARK: Reading back

    /// The Python side: both readers' rows, every cell as a string (doubles as `repr`, dates
    /// as days, timestamps as microseconds), pyarrow's schema and footer, and each column
    /// chunk's pages as a compact-protocol walker finds them, every page gunzipped to its
    /// stated size.
    static let readerScript = #"""
        import gzip, json, sys
        import duckdb, pyarrow as pa, pyarrow.parquet as pq

        path = sys.argv[1]

        def cell(v):
            if v is None: return None
            if isinstance(v, bool): return "true" if v else "false"
            if isinstance(v, float): return repr(v)
            if isinstance(v, bytes): return v.decode("utf-8")
            return str(v)

        table = pq.read_table(path)
        columns = []
        for field in table.schema:
            c = table.column(field.name)
            if pa.types.is_timestamp(field.type): c = c.cast(pa.int64())
            if pa.types.is_date32(field.type): c = c.cast(pa.int32())
            columns.append([cell(v) for v in c.to_pylist()])
        arrow_rows = [list(r) for r in zip(*columns)] if columns else []

        select = []
        for field in table.schema:
            name = '"' + field.name + '"'
            if pa.types.is_timestamp(field.type): select.append("epoch_us(" + name + ")")
            elif pa.types.is_date32(field.type): select.append("(" + name + " - DATE '1970-01-01')")
            else: select.append(name)
        duck = duckdb.sql("select " + ", ".join(select) + " from read_parquet('" + path + "')").fetchall()
        duck_rows = [[cell(v) for v in r] for r in duck]
        duck_count = duckdb.sql("select count(*) from read_parquet('" + path + "')").fetchall()[0][0]

        def varint(b, i):
            r = s = 0
            while True:
                x = b[i]; i += 1; r |= (x & 0x7F) << s; s += 7
                if x < 0x80: return r, i

        def zigzag(n): return (n >> 1) ^ -(n & 1)

        def struct(b, i):
            fields, last = {}, 0
            while True:
                h = b[i]; i += 1
                if h == 0: return fields, i
                t, d = h & 0x0F, h >> 4
                if d: fid = last + d
                else:
                    v, i = varint(b, i); fid = zigzag(v)
                last = fid
                if t in (1, 2): fields[fid] = t == 1
                elif t in (4, 5, 6):
                    v, i = varint(b, i); fields[fid] = zigzag(v)
                elif t == 8:
                    n, i = varint(b, i); fields[fid] = b[i:i + n]; i += n
                elif t == 12: fields[fid], i = struct(b, i)
                else: raise ValueError("unexpected compact type %d" % t)

        data = open(path, "rb").read()
        assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"
        meta = pq.ParquetFile(path).metadata
        row_groups = []
        for g in range(meta.num_row_groups):
            rg = meta.row_group(g)
            out = {"num_rows": rg.num_rows, "columns": []}
            for c in range(rg.num_columns):
                col = rg.column(c)
                st = col.statistics
                start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
                i, end, pages = start, start + col.total_compressed_size, []
                while i < end:
                    header, i = struct(data, i)
                    body = data[i:i + header[3]]; i += header[3]
                    assert len(gzip.decompress(body)) == header[2], "page does not gunzip to its size"
                    kind = {0: "data", 2: "dictionary"}[header[1]]
                    pages.append([kind, (header.get(5) or header.get(7))[1]])
                assert i == end, "pages do not fill the chunk"
                out["columns"].append({
                    "compression": col.compression,
                    "encodings": list(col.encodings),
                    "num_values": col.num_values,
                    "null_count": st.null_count if st is not None and st.has_null_count else None,
                    "min": cell(st.min_raw) if st is not None and st.has_min_max else None,
                    "max": cell(st.max_raw) if st is not None and st.has_min_max else None,
                    "pages": pages,
                })
            row_groups.append(out)

        print(json.dumps({
            "schema": [[f.name, str(f.type)] for f in table.schema],
            "num_rows": meta.num_rows,
            "created_by": meta.created_by,
            "arrow": arrow_rows, "duckdb": duck_rows, "duckdb_count": duck_count,
            "row_groups": row_groups,
        }))
        """#

    /// What the readers made of a file.
    struct ReadBack {
        var schema: [[String]]
        var rowCount: Int
        var createdBy: String
        var arrowRows: [[String?]]
        var duckDBRows: [[String?]]
        var duckDBCount: Int
        var rowGroups: [[String: Any]]
    }

    static func readBack(_ path: String) throws -> ReadBack {
        let result = try Support.runProgram("/usr/bin/env", ["python3", "-c", readerScript, path])
        try #require(result.status == 0, "readers failed: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let rows = { (key: String) in (json[key] as? [[Any]] ?? []).map { $0.map { $0 as? String } } }
        return ReadBack(
            schema: json["schema"] as? [[String]] ?? [], rowCount: json["num_rows"] as? Int ?? -1,
            createdBy: json["created_by"] as? String ?? "", arrowRows: rows("arrow"), duckDBRows: rows("duckdb"),
            duckDBCount: json["duckdb_count"] as? Int ?? -1, rowGroups: json["row_groups"] as? [[String: Any]] ?? [])
    }

    /// Whether a reader's rendering of a cell is the appended value.
    static func matches(_ text: String?, _ cell: Cell) -> Bool {
        switch cell {
        case .null: return text == nil
        case .int(let value): return text == String(value)
        case .date(let days): return text == String(days)
        case .bool(let value): return text == (value ? "true" : "false")
        case .string(let value): return text.map { Array($0.utf8) == Array(value.utf8) } ?? false
        case .double(let value):
            guard let text, let read = Double(text) else { return false }
            return value.isNaN ? read.isNaN : read.bitPattern == value.bitPattern
        }
    }

    /// Whether a reader's rendering of a statistics bound is `cell`: as `matches`, but a zero
    /// double matches either sign (a bound is written -0.0 as a minimum, +0.0 as a maximum).
    static func matchesBound(_ text: String?, _ cell: Cell) -> Bool {
        if case .double(let value) = cell, value == 0 { return text.flatMap(Double.init) == 0 }
        return matches(text, cell)
    }

    /// Compares both readers' rows with the appended ones, cell by cell.
    static func expectRows(_ read: ReadBack, _ rows: [[Cell]], columns: [ParquetColumn]) {
        #expect(read.rowCount == rows.count)
        #expect(read.duckDBCount == rows.count)
        for (reader, readRows) in [("pyarrow", read.arrowRows), ("DuckDB", read.duckDBRows)] {
            #expect(readRows.count == rows.count, "\(reader): \(readRows.count) rows")
            var mismatches = 0
            for (index, (readRow, row)) in zip(readRows, rows).enumerated() {
                for (column, (text, cell)) in zip(readRow, row).enumerated() where !matches(text, cell) {
                    mismatches += 1
                    if mismatches <= 5 {
                        Issue.record("\(reader): row \(index) column \(columns[column].name): read \(text ?? "null"), appended \(cell)")
                    }
                }
            }
            #expect(mismatches == 0, "\(reader): \(mismatches) cells differ")
        }
    }

    /// The statistics a column chunk of `cells` should carry: null count, and min and max in
    /// the readers' rendering (nil when there is no non-null, non-NaN value).
    static func expectedStatistics(_ cells: ArraySlice<Cell>) -> (nulls: Int, min: Cell?, max: Cell?) {
        let values = cells.filter { $0 != .null && !{ if case .double(let d) = $0 { d.isNaN } else { false } }($0) }
        let precedes = { (a: Cell, b: Cell) -> Bool in
            switch (a, b) {
            case (.int(let x), .int(let y)): x < y
            case (.date(let x), .date(let y)): x < y
            case (.double(let x), .double(let y)): x < y
            case (.bool(let x), .bool(let y)): !x && y
            case (.string(let x), .string(let y)): Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            default: false
            }
        }
        return (cells.count - cells.filter { $0 != .null }.count, values.min(by: precedes), values.max(by: precedes))
    }

    // MARK: Tests

    static let tableColumns = [
        ParquetColumn("id", .int64), ParquetColumn("at", .timestampMicrosUTC), ParquetColumn("day", .date),
        ParquetColumn("value", .double), ParquetColumn("flag", .boolean), ParquetColumn("name", .string),
        ParquetColumn("unit", .string),
    ]

    /// Strings that stress UTF-8 and ordering: empty, multi-byte, emoji sequences, control bytes.
    static let awkwardStrings = [
        "", "a", "naïve café", "日本語テキスト", "emoji 🏃‍♀️❤️‍🔥", "Ω≈ç√∫", "line\nbreak\ttab", "quote \" comma ,", "\u{7F}", "zzz",
    ]

    static func randomTable(rowCount: Int, seed: UInt64) -> [[Cell]] {
        var random = SeededRandom(state: seed)
        let alphabet = Array("abcXYZ09 éß漢字😀-")
        let extremes: [Int64] = [.min, .max, -1, 0, 1]
        return (0..<rowCount).map { _ in
            var row: [Cell] = []
            let nullPercent = 12
            row.append(
                random.chance(nullPercent)
                    ? .null
                    : random.chance(5) ? .int(extremes[random.below(extremes.count)]) : .int(Int64(bitPattern: random.next()) >> random.below(64)))
            // 1900 to 2100, so some before 1970.
            row.append(
                random.chance(nullPercent)
                    ? .null : .int(-2_208_988_800_000_000 + Int64(random.below(6_311_390_400)) * 1_000_000 + Int64(random.below(1_000_000))))
            row.append(random.chance(nullPercent) ? .null : .date(Int32(random.below(73_000)) - 25_567))
            let specials: [Double] = [-0.0, 0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.greatestFiniteMagnitude]
            row.append(
                random.chance(nullPercent)
                    ? .null
                    : random.chance(3)
                        ? .double(specials[random.below(specials.count)]) : .double((Double(random.next() % 2_000_001) - 1_000_000) / 977))
            row.append(random.chance(nullPercent) ? .null : .bool(random.chance(50)))
            if random.chance(nullPercent) {
                row.append(.null)
            } else if random.chance(40) {
                row.append(.string(awkwardStrings[random.below(awkwardStrings.count)]))
            } else {
                row.append(.string(String((0..<random.below(24)).map { _ in alphabet[random.below(alphabet.count)] })))
            }
            let units = ["count/min", "m", "km/hr", "°C", ""]
            row.append(random.chance(nullPercent) ? .null : .string(units[random.below(units.count)]))
            return row
        }
    }

    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func aRandomTableReadsBackInBothReaders() throws {
        let path = Support.temporaryDirectory() + "/table.parquet"
        let rows = Self.randomTable(rowCount: 3000, seed: 20_251_126)
        let columns = Self.tableColumns
        // The cases the table is meant to hold are really in it: nulls in every column, Int64's
        // extremes, a timestamp and a date before 1970, NaN, the empty string and an emoji.
        for column in columns.indices { #expect(rows.contains { $0[column] == .null }, "no null in \(columns[column].name)") }
        #expect(rows.contains { $0[0] == .int(.min) } && rows.contains { $0[0] == .int(.max) })
        #expect(rows.contains { if case .int(let t) = $0[1] { t < 0 } else { false } })
        #expect(rows.contains { if case .date(let d) = $0[2] { d < 0 } else { false } })
        #expect(rows.contains { if case .double(let v) = $0[3] { v.isNaN } else { false } })
        #expect(rows.contains { $0[5] == .string("") } && rows.contains { $0[5] == .string("emoji 🏃‍♀️❤️‍🔥") })
        try Self.write(rows, columns: columns, to: path, rowGroupBytes: 30_000, pageValueBytes: 1000)
        let read = try Self.readBack(path)

        #expect(
            read.schema == [
                ["id", "int64"], ["at", "timestamp[us, tz=UTC]"], ["day", "date32[day]"], ["value", "double"], ["flag", "bool"],
                ["name", "string"], ["unit", "string"],
            ])
        #expect(read.createdBy.hasPrefix("healthtrail"))
        Self.expectRows(read, rows, columns: columns)

        // Footer and pages, row group by row group, against statistics computed here.
        #expect(read.rowGroups.count >= 3, "\(read.rowGroups.count) row groups")
        var start = 0
        var multiPageChunks = 0
        for (g, group) in read.rowGroups.enumerated() {
            let count = group["num_rows"] as? Int ?? 0
            let chunks = group["columns"] as? [[String: Any]] ?? []
            try #require(chunks.count == columns.count && start + count <= rows.count)
            for (c, chunk) in chunks.enumerated() {
                let cells = rows[start..<(start + count)].map { $0[c] }
                let expected = Self.expectedStatistics(cells[...])
                let place = "row group \(g) column \(columns[c].name)"
                #expect(chunk["compression"] as? String == "GZIP", "\(place)")
                #expect(chunk["num_values"] as? Int == count, "\(place)")
                #expect(chunk["null_count"] as? Int == expected.nulls, "\(place)")
                #expect(
                    expected.min.map { Self.matchesBound(chunk["min"] as? String, $0) } ?? (chunk["min"] is NSNull),
                    "\(place): min \(String(describing: chunk["min"]))")
                #expect(
                    expected.max.map { Self.matchesBound(chunk["max"] as? String, $0) } ?? (chunk["max"] is NSNull),
                    "\(place): max \(String(describing: chunk["max"]))")
                let pages = chunk["pages"] as? [[Any]] ?? []
                let dataPages = pages.filter { $0.first as? String == "data" }
                #expect(dataPages.reduce(0) { $0 + ($1.last as? Int ?? 0) } == count, "\(place): data pages' values")
                if dataPages.count > 1 { multiPageChunks += 1 }
                let encodings = chunk["encodings"] as? [String] ?? []
                if columns[c].type == .string {
                    #expect(
                        pages.first?.first as? String == "dictionary" && encodings.contains("RLE_DICTIONARY"),
                        "\(place): \(pages.prefix(1)) \(encodings)")
                } else {
                    #expect(pages.allSatisfy { $0.first as? String == "data" } && encodings.contains("PLAIN"), "\(place)")
                }
            }
            start += count
        }
        #expect(start == rows.count)
        #expect(multiPageChunks >= columns.count, "only \(multiPageChunks) column chunks have several pages")
    }

    /// Many distinct long strings fill the dictionary (past its MiB of entries): that chunk is
    /// written PLAIN, the next row group's (short, repeated strings) with a dictionary again.
    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func aFullDictionaryFallsBackToPlain() throws {
        let path = Support.temporaryDirectory() + "/distinct.parquet"
        var random = SeededRandom(state: 7)
        var rows: [[Cell]] = []
        for i in 0..<2000 {
            let text = "\(i) " + String(repeating: "ü", count: 400) + String(random.next())
            rows.append([.int(Int64(i)), random.chance(5) ? .null : .string(i % 10 == 0 ? "repeat" : text)])
        }
        for i in 2000..<4000 {
            rows.append([.int(Int64(i)), random.chance(5) ? .null : .string(Self.awkwardStrings[i % Self.awkwardStrings.count])])
        }
        let columns = [ParquetColumn("n", .int64), ParquetColumn("text", .string)]
        try Self.write(rows, columns: columns, to: path, rowGroupBytes: 1_400_000)
        let read = try Self.readBack(path)
        Self.expectRows(read, rows, columns: columns)
        try #require(read.rowGroups.count == 2)
        let first = (read.rowGroups[0]["columns"] as? [[String: Any]] ?? [])[1]
        let second = (read.rowGroups[1]["columns"] as? [[String: Any]] ?? [])[1]
        #expect(!(first["encodings"] as? [String] ?? []).contains("RLE_DICTIONARY"), "\(first["encodings"] ?? "")")
        #expect((first["pages"] as? [[Any]] ?? []).allSatisfy { $0.first as? String == "data" })
        #expect((second["encodings"] as? [String] ?? []).contains("RLE_DICTIONARY"), "\(second["encodings"] ?? "")")
        let firstCount = read.rowGroups[0]["num_rows"] as? Int ?? 0
        let expected = Self.expectedStatistics(rows[0..<firstCount].map { $0[1] }[...])
        #expect(expected.min.map { Self.matchesBound(first["min"] as? String, $0) } ?? false)
        #expect(expected.max.map { Self.matchesBound(first["max"] as? String, $0) } ?? false)
    }

    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func aFileWithNoRowsIsValidAndOwnerOnly() throws {
        let path = Support.temporaryDirectory() + "/empty.parquet"
        try Self.write([], columns: Self.tableColumns, to: path)
        let read = try Self.readBack(path)
        #expect(read.rowCount == 0 && read.duckDBCount == 0 && read.rowGroups.isEmpty)
        #expect(read.schema.map(\.first) == Self.tableColumns.map(\.name))
        #expect(read.schema.map(\.last) == ["int64", "timestamp[us, tz=UTC]", "date32[day]", "double", "bool", "string", "string"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// A column of nothing but nulls has no min or max, and still reads back.
    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func allNullColumnsHaveNoBounds() throws {
        let path = Support.temporaryDirectory() + "/nulls.parquet"
        let rows = (0..<100).map { i in [Cell.int(Int64(i))] + Array(repeating: Cell.null, count: Self.tableColumns.count - 1) }
        try Self.write(rows, columns: Self.tableColumns, to: path)
        let read = try Self.readBack(path)
        Self.expectRows(read, rows, columns: Self.tableColumns)
        let chunks = try #require(read.rowGroups.first?["columns"] as? [[String: Any]])
        for chunk in chunks.dropFirst() {
            #expect(chunk["null_count"] as? Int == 100)
            #expect(chunk["min"] is NSNull && chunk["max"] is NSNull)
        }
    }

    @Test func aRowWithTheWrongNumberOfValuesThrows() throws {
        let directory = Support.temporaryDirectory()
        let columns = [ParquetColumn("a", .int64), ParquetColumn("b", .double)]

        let missing = try ParquetWriter(path: directory + "/missing.parquet", columns: columns)
        missing.append(0, int64: 1)
        missing.append(1, double: 1)
        try missing.endRow()
        missing.append(0, int64: 2)
        #expect(throws: InputError.self) { try missing.endRow() }
        #expect(throws: InputError.self) { try missing.close() }
        #expect(missing.rows == 1)

        let doubled = try ParquetWriter(path: directory + "/doubled.parquet", columns: columns)
        doubled.append(0, int64: 1)
        doubled.appendNull(0)
        doubled.appendNull(1)
        #expect(throws: InputError.self) { try doubled.endRow() }
        #expect(throws: InputError.self) { try doubled.endRow() }
        #expect(doubled.rows == 0)
    }
}
