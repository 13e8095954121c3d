"""Reads a HealthTrail output folder's tables in every format with independent readers and
compares them value by value with the CSV files: Python's csv module for the CSV, Python's
sqlite3 for healthtrail.db, pyarrow and DuckDB for parquet/.

usage: table_check.py OUT SCHEMA.json FORMATS [CSV-FOLDER]
FORMATS: comma-separated, e.g. sqlite,parquet. CSV-FOLDER: where the CSV files are, when OUT has
none (a run without csv); OUT by default.
SCHEMA.json: {"<csv name>": {"table": name, "columns": [[name, type], ...]}, ...}
Prints one JSON object: rows per table and format, values compared, the first mismatches.
"""
import calendar, csv, datetime, json, math, os, sqlite3, sys

out, schema_path, formats = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
reference = sys.argv[4] if len(sys.argv) > 4 else out
schema = json.load(open(schema_path))
report = {"tables": {}, "values": 0, "mismatches": []}

SQLITE_TYPE = {"text": "TEXT", "integer": "INTEGER", "real": "REAL", "boolean": "INTEGER", "date": "TEXT", "timestamp": "TEXT"}


def mismatch(*what):
    if len(report["mismatches"]) < 20:
        report["mismatches"].append(" | ".join(str(w) for w in what))


def unix(text):
    return calendar.timegm(datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").timetuple())


def agrees(kind, text, value):
    """Whether a typed value is the CSV field's text, by the column's type."""
    if text == "":
        return value is None
    if value is None:
        return False
    if kind == "text":
        return value == text
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) and value == int(text)
    if kind == "real":
        return isinstance(value, float) and value == float(text)
    if kind == "boolean":
        return value == (text == "true") and text in ("true", "false")
    if kind == "date":
        return (value.isoformat() if isinstance(value, datetime.date) else value) == text
    if kind == "timestamp":
        if isinstance(value, datetime.datetime):
            return value.tzinfo is not None and value.utcoffset() == datetime.timedelta(0) and \
                value.strftime("%Y-%m-%dT%H:%M:%SZ") == text and value.microsecond == 0
        if isinstance(value, int):   # DuckDB: epoch microseconds
            return value == unix(text) * 1_000_000
        return value == text
    return False


for csv_name, table in sorted(schema.items()):
    path = os.path.join(reference, csv_name)
    if not os.path.exists(path):
        mismatch(csv_name, "no CSV file")
        continue
    columns = table["columns"]
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    if header != [c[0] for c in columns]:
        mismatch(csv_name, "header", header)
    entry = {"csv": len(rows)}
    report["tables"][csv_name] = entry
    name = table["table"]

    if "sqlite" in formats:
        db = sqlite3.connect(os.path.join(out, "healthtrail.db"))
        # table_xinfo, not table_info, which leaves generated columns out. hidden: 0 for a
        # stored column, 2 for a virtual generated one (SQLite's pragma documentation).
        xinfo = [(r[1], r[2], r[6]) for r in db.execute(f'PRAGMA table_xinfo("{name}")')]
        declared = {n: (t, hidden) for n, t, hidden in xinfo}
        expected_order = []
        for column, kind in columns:
            expected_order.append(column)
            # A timestamp's text is generated from its Unix seconds, stored in the next column.
            want = (SQLITE_TYPE[kind], 2 if kind == "timestamp" else 0)
            if declared.get(column) != want:
                mismatch(csv_name, "sqlite type", column, declared.get(column))
            if kind == "timestamp":
                unix_name = (column[:-4] if column.endswith("_utc") else column) + "_unix"
                expected_order.append(unix_name)
                if declared.get(unix_name) != ("INTEGER", 0):
                    mismatch(csv_name, "sqlite unix column", unix_name, declared.get(unix_name))
        # The CSV's columns first, in its order; only generated columns (local times) after them.
        names = [n for n, _, _ in xinfo]
        if names[:len(expected_order)] != expected_order or any(h != 2 for _, _, h in xinfo[len(expected_order):]):
            mismatch(csv_name, "sqlite columns", names)
        got = db.execute(f'SELECT * FROM "{name}" ORDER BY rowid').fetchall()
        entry["sqlite"] = len(got)
        for i, (row, typed) in enumerate(zip(rows, got)):
            j = 0
            for (column, kind), text in zip(columns, row):
                value = typed[j]
                j += 1
                if kind == "boolean" and value is not None:
                    value = {1: True, 0: False}.get(value, value)
                # A timestamp's text is SQLite's, generated from the stored seconds: the CSV's.
                if not agrees("text" if kind in ("date", "timestamp") else kind, text, value):
                    mismatch(csv_name, "sqlite", i + 2, column)
                report["values"] += 1
                if kind == "timestamp":
                    if typed[j] != (unix(text) if text else None):
                        mismatch(csv_name, "sqlite unix", i + 2, column)
                    j += 1
        db.close()

    if "parquet" in formats:
        import pyarrow as pa, pyarrow.parquet as pq
        parquet = os.path.join(out, "parquet", csv_name[:-4] + ".parquet")
        t = pq.read_table(parquet)
        expected = {"text": pa.string(), "integer": pa.int64(), "real": pa.float64(), "boolean": pa.bool_(),
                    "date": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC")}
        if t.schema.names != [c[0] for c in columns]:
            mismatch(csv_name, "parquet columns", t.schema.names)
        for field, (column, kind) in zip(t.schema, columns):
            if field.type != expected[kind]:
                mismatch(csv_name, "parquet type", column, field.type)
        entry["parquet"] = t.num_rows
        data = [t.column(k).to_pylist() for k in range(t.num_columns)]
        for i, row in enumerate(rows):
            for k, ((column, kind), text) in enumerate(zip(columns, row)):
                if not agrees(kind, text, data[k][i] if i < t.num_rows else "missing"):
                    mismatch(csv_name, "pyarrow", i + 2, column)
                report["values"] += 1
        # DuckDB, a second Parquet reader: every value again, timestamps as epoch microseconds.
        try:
            import duckdb
        except ImportError:
            continue
        select = ", ".join(f'epoch_us("{c}")' if k == "timestamp" else f'"{c}"' for c, k in columns)
        got = duckdb.sql(f"SELECT {select} FROM read_parquet('{parquet}')").fetchall()
        entry["duckdb"] = len(got)
        for i, (row, typed) in enumerate(zip(rows, got)):
            for (column, kind), text, value in zip(columns, row, typed):
                if not agrees(kind, text, value):
                    mismatch(csv_name, "duckdb", i + 2, column)
                report["values"] += 1

print(json.dumps(report))
