#!/usr/bin/env bash
# HealthTrail beside other tools that read an Apple Health export, on the same archive.
#
#   Benchmarks/peers/run_peers.sh ARCHIVE.zip [HEALTHTRAIL_BIN] [REPORT.md]
#
# Peers come from PyPI into a venv under .bench/peers-venv (created once):
#   healthkit-to-sqlite  export.zip → a SQLite database (records by type, workouts, GPX points)
#   apple-health-parser  export.zip → extracted export.xml → one CSV per record type
# Each peer runs ONCE (the slow one takes many minutes on the 720-day archive); HealthTrail runs
# HEALTHTRAIL_RUNS times (default 3) and its median is compared. Every run is measured the same
# way, by GNU time (`/usr/bin/time -v`: wall clock, user + system CPU time and maximum resident set
# size), so start-up is included for all tools alike. CPU time is reported beside wall time because
# on a shared machine the peer's long run and HealthTrail's short ones see different loads: CPU
# time moves far less with the load than wall time does. A peer that fails, or outlasts PEER_TIMEOUT seconds (default 3600),
# is reported as such rather than left out.
#
# Environment: PEERS (default "healthkit-to-sqlite apple-health-parser"), PEER_TIMEOUT,
# HEALTHTRAIL_RUNS, WORK (scratch folder, default .bench/peers).
set -euo pipefail

archive=${1:?usage: run_peers.sh ARCHIVE.zip [HEALTHTRAIL_BIN] [REPORT.md]}
healthtrail=${2:-.build/release/healthtrail}
report=${3:-Benchmarks/results/peers.md}
peers=${PEERS:-healthkit-to-sqlite apple-health-parser}
timeout_s=${PEER_TIMEOUT:-3600}
runs=${HEALTHTRAIL_RUNS:-3}
work=${WORK:-.bench/peers}
venv=.bench/peers-venv

[ -f "$archive" ] || { echo "run_peers: $archive: no such archive" >&2; exit 1; }
[ -x "$healthtrail" ] || { echo "run_peers: $healthtrail: not built (make build)" >&2; exit 1; }

# GNU time, for peak RSS of a whole process tree's main process (Debian's `time` package).
if [ ! -x /usr/bin/time ]; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time
fi

# The peers, from PyPI; one that does not install is reported and skipped.
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
installed=""
for peer in $peers; do
    if "$venv/bin/pip" install --quiet --disable-pip-version-check "$peer"; then
        installed="$installed $peer"
    else
        echo "run_peers: $peer did not install from PyPI; skipped" >&2
    fi
done

rm -rf "$work"
mkdir -p "$work"
results="$work/results.tsv"   # tool, run, status, wall seconds, peak RSS KiB, CPU seconds
: > "$results"

# measure TOOL RUN COMMAND...: one run under GNU time, appended to results.tsv.
measure() {
    local tool=$1 run=$2; shift 2
    local log="$work/$tool-$run.time"
    local status=0
    timeout "$timeout_s" /usr/bin/time -v -o "$log" "$@" > "$work/$tool-$run.out" 2> "$work/$tool-$run.err" || status=$?
    local wall rss cpu
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log" 2>/dev/null || true)
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log" 2>/dev/null || true)
    cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { if (NR) print s }' "$log" 2>/dev/null || true)
    [ "$status" = 124 ] && wall="$timeout_s"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$run" "$status" "${wall:-?}" "${rss:-?}" "${cpu:-?}" >> "$results"
    echo "$tool run $run: exit $status, ${wall:-?} s, CPU ${cpu:-?} s, peak RSS ${rss:-?} KiB"
}

# HealthTrail first: warm the page cache with the archive, then the counted runs.
"$healthtrail" run "$archive" --out "$work/healthtrail-warmup" --quiet > /dev/null
rm -rf "$work/healthtrail-warmup"
for run in $(seq 1 "$runs"); do
    measure healthtrail "$run" "$healthtrail" run "$archive" --out "$work/healthtrail-out" --quiet
    [ "$run" = "$runs" ] || rm -rf "$work/healthtrail-out"
done

for peer in $installed; do
    case $peer in
    healthkit-to-sqlite)
        measure healthkit-to-sqlite 1 "$venv/bin/healthkit-to-sqlite" "$archive" "$work/healthkit.db" --silent ;;
    apple-health-parser)
        # Its documented use: Parser(zip) extracts the zip and parses export.xml; export() writes CSVs.
        # It looks for <zip name>.xml inside, so it is given the archive under Apple's name.
        ln -sf "$(realpath "$archive")" "$work/export.zip"
        measure apple-health-parser 1 "$venv/bin/python" -c '
import sys
from apple_health_parser.utils.parser import Parser
Parser(export_file=sys.argv[1], output_dir=sys.argv[2], overwrite=True).export(dir_name=sys.argv[3])
' "$work/export.zip" "$work/ahp-extracted" "$work/ahp-csv" ;;
    esac
done

# What each tool wrote, so that the comparison says what was compared.
outputs="$work/outputs.md"
{
    if [ -d "$work/healthtrail-out" ]; then
        echo "- healthtrail: $(find "$work/healthtrail-out" -type f | wc -l) files, $(du -sm "$work/healthtrail-out" | cut -f1) MB"
    fi
    if [ -f "$work/healthkit.db" ]; then
        "$venv/bin/python" - "$work/healthkit.db" <<'PY'
import sqlite3, sys, os
db = sqlite3.connect(sys.argv[1])
tables = [r[0] for r in db.execute("select name from sqlite_master where type='table' order by name")]
rows = {t: db.execute(f"select count(*) from [{t}]").fetchone()[0] for t in tables}
records = sum(n for t, n in rows.items() if t.startswith("r"))
print(f"- healthkit-to-sqlite: {os.path.getsize(sys.argv[1]) // 10**6} MB SQLite, {len(tables)} tables; "
      f"{records} records in {sum(t.startswith('r') for t in tables)} record tables, "
      f"{rows.get('workouts', 0)} workouts, {rows.get('workout_points', 0)} workout_points, "
      f"{rows.get('activity_summary', 0)} activity_summary rows")
PY
    fi
    if [ -d "$work/ahp-csv" ]; then
        echo "- apple-health-parser: $(find "$work/ahp-csv" -name '*.csv' | wc -l) CSV files, $(du -sm "$work/ahp-csv" | cut -f1) MB (plus the extracted archive, $(du -sm "$work/ahp-extracted" | cut -f1) MB)"
    fi
} > "$outputs"

# The report: one row per tool (HealthTrail: medians of its runs), ratios to HealthTrail's medians.
"$venv/bin/python" - "$results" "$archive" "$outputs" "$runs" "$timeout_s" > "$report" <<'PY'
import os, platform, statistics, sys, time
results, archive, outputs, runs, timeout_s = sys.argv[1:6]
def num(x):
    try: return float(x)
    except ValueError: return None
rows = [line.rstrip("\n").split("\t") for line in open(results)]
ht = [r for r in rows if r[0] == "healthtrail" and r[2] == "0"]
ht_wall = statistics.median(num(r[3]) for r in ht)
ht_cpu = statistics.median(num(r[5]) for r in ht)
ht_rss = statistics.median(num(r[4]) for r in ht) / 1024
print("### HealthTrail beside other tools (`make bench-peers`)\n")
print(f"- Archive: `{archive}`, {os.path.getsize(archive) / 1e6:.1f} MB")
print(f"- {platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} cores, "
      f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; wall time, CPU time (user + system) "
      "and peak RSS by GNU time")
print(f"- HealthTrail: medians of {runs} runs after a warm-up; each peer: one run "
      f"(time limit {timeout_s} s)\n")
print("| tool | runs | wall s | wall × healthtrail | CPU s | CPU × healthtrail | peak RSS MiB | status |")
print("| ---- | ---: | -----: | -----------------: | ----: | ----------------: | -----------: | ------ |")
print(f"| healthtrail | {len(ht)} | {ht_wall:.2f} | 1.0× | {ht_cpu:.2f} | 1.0× | {ht_rss:.1f} | ok (wall: "
      + ", ".join(f"{num(r[3]):.2f}" for r in ht) + " s) |")
for r in rows:
    if r[0] == "healthtrail":
        continue
    wall, rss, cpu = num(r[3]), num(r[4]), num(r[5])
    ok = r[2] == "0"
    status = "ok" if ok else (f"stopped at the {timeout_s} s limit" if r[2] == "124" else f"exit {r[2]}")
    cell = lambda v, f: f.format(v) if v is not None else "?"
    ratio = lambda v, base: f"{v / base:.1f}×" if ok and v is not None else "—"
    print(f"| {r[0]} | 1 | {cell(wall, '{:.1f}')} | {ratio(wall, ht_wall)} | {cell(cpu, '{:.1f}')} | "
          f"{ratio(cpu, ht_cpu)} | {cell(rss and rss / 1024, '{:.1f}')} | {status} |")
print("\nWhat each wrote:\n")
print(open(outputs).read())
PY
cat "$report"
