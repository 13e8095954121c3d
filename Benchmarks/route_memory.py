#!/usr/bin/env python3
"""Peak memory of `healthtrail run` on route files far larger or more numerous than real ones.

Two archives, written once into --out-dir and reused:
  many-files  2,000 GPX files of about 1 MiB each, every one a repeated point at the same second
              (orphan routes: no workout names them), default maps;
  one-track   one GPX file of 1.8 million points (about 237 MiB).
Each is run once with GNU time; the case fails when its peak RSS is above --max-rss-mb, and the
script then exits 1 after reporting every case. Writes a Markdown report with --report.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

EXPORT_XML = """<?xml version="1.0" encoding="UTF-8"?>
<HealthData locale="en_US">
 <ExportDate value="2024-01-01 00:00:00 +0000"/>
</HealthData>
"""
GPX_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="bench"><trk><trkseg>\n'
GPX_TAIL = "</trkseg></trk></gpx>\n"


def many_files(path, files):
    point = '<trkpt lon="2.350000" lat="48.850000"><ele>10.0</ele><time>2023-01-01T17:17:30Z</time></trkpt>\n'
    gpx = GPX_HEAD + point * ((1 << 20) // len(point)) + GPX_TAIL
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("apple_health_export/export.xml", EXPORT_XML)
        for i in range(files):
            z.writestr(f"apple_health_export/workout-routes/route_{i:04d}.gpx", gpx)


def one_track(path, points):
    start = datetime.datetime(2023, 1, 1, 17, 17, 30)
    parts = [GPX_HEAD]
    for i in range(points):
        t = (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        parts.append(f'<trkpt lon="2.{i % 1000000:06d}" lat="48.{i * 7 % 1000000:06d}"><ele>10.0</ele>'
                     f"<time>{t}</time><extensions><speed>1.0</speed></extensions></trkpt>\n")
    parts.append(GPX_TAIL)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("apple_health_export/export.xml", EXPORT_XML)
        z.writestr("apple_health_export/workout-routes/route_2023-01-01_5.17pm.gpx", "".join(parts))


def measure(healthtrail, archive, out):
    shutil.rmtree(out, ignore_errors=True)
    # The many-files archive repeats one point, so it inflates past the default 200:1 guard.
    result = subprocess.run(["/usr/bin/time", "-f", "%M %e", healthtrail, "run", archive, "--out", out, "--quiet",
                             "--max-expansion-ratio", "1000"], capture_output=True, text=True)
    last = result.stderr.strip().splitlines()[-1]
    match = re.fullmatch(r"(\d+) ([\d.]+)", last)
    if result.returncode != 0 or not match:
        sys.exit(f"route_memory: {archive}: healthtrail exited {result.returncode}: {result.stderr.strip()}")
    with open(os.path.join(out, "manifest.json")) as f:
        thinned = json.load(f)["routes"].get("thinned_points", 0)
    shutil.rmtree(out, ignore_errors=True)
    return int(match.group(1)) / 1024, float(match.group(2)), thinned


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--healthtrail", required=True)
    parser.add_argument("--out-dir", default=".bench/route-memory")
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--points", type=int, default=1_800_000)
    parser.add_argument("--max-rss-mb", type=float, default=150)
    parser.add_argument("--report")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    cases = [("many-files", f"{args.files} GPX files of 1 MiB", f"many-{args.files}.zip", many_files, args.files),
             ("one-track", f"one GPX file of {args.points:,} points", f"track-{args.points}.zip", one_track, args.points)]
    rows, failed = [], []
    for name, what, file, make, size in cases:
        archive = os.path.join(args.out_dir, file)
        if not os.path.exists(archive):
            make(archive + ".tmp", size)
            os.replace(archive + ".tmp", archive)
        rss, seconds, thinned = measure(args.healthtrail, archive, os.path.join(args.out_dir, "out"))
        verdict = "ok" if rss <= args.max_rss_mb else "FAIL"
        if verdict == "FAIL":
            failed.append(f"{name} {rss:.1f} MiB")
        print(f"{name}: peak RSS {rss:.1f} MiB, {seconds:.1f} s, {thinned} points thinned: {verdict}")
        rows.append(f"| {name} | {what} | {rss:.1f} | {seconds:.1f} | {thinned} | {verdict} |")
    if args.report:
        with open(args.report, "w") as f:
            f.write("# Route memory benchmark\n\n"
                    f"Peak RSS of `healthtrail run` (GNU time), one run per case; a case fails above "
                    f"{args.max_rss_mb:g} MiB.\n\n"
                    "| case | archive | peak RSS MiB | wall s | points thinned | verdict |\n|---|---|---|---|---|---|\n"
                    + "\n".join(rows) + "\n")
    if failed:
        sys.exit("FAIL: peak RSS above the limit: " + ", ".join(failed))


if __name__ == "__main__":
    main()
