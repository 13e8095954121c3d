#!/usr/bin/env python3
"""Hostile inputs: small archives built to cost far more than their size, each with a limit.

Every case is an archive written once into --out-dir (reused while this script is unchanged)
and run once by `healthtrail run`. Measured: wall time, peak RSS (GNU time) and the peak disk
use of the output folder (staging included), sampled while the run goes. A case fails when it
is over its time, memory or disk limit, or when the run does not end as the case expects; the
script reports every case, then exits 1 naming the failures. Writes a Markdown report with
--report. `--case NAME` (repeatable) runs only those cases.

The disk limit is the one docs/bad-input.md promises: staging stays within a small multiple of
the export's inflated size (DISK_FACTOR times, plus DISK_SLACK_MIB for fixed-size files).
"""
import argparse
import hashlib
import inspect
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile

DISK_FACTOR = 4
DISK_SLACK_MIB = 32
RSS_LIMIT_MIB = 150

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n' \
       ' <ExportDate value="2024-01-01 00:00:00 +0000"/>\n'
TAIL = "</HealthData>\n"


def write_export(path, lines, extra=()):
    """A zip whose export.xml is HEAD, the strings `lines` yields, TAIL; then the (name, text) pairs
    `extra` yields. Streams, so archives far larger than memory can be written."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        with z.open("apple_health_export/export.xml", "w", force_zip64=True) as f:
            f.write(HEAD.encode())
            chunk = []
            for line in lines:
                chunk.append(line)
                if len(chunk) >= 4096:
                    f.write("".join(chunk).encode())
                    chunk.clear()
            f.write("".join(chunk).encode())
            f.write(TAIL.encode())
        for name, text in extra:
            if isinstance(text, str):
                z.writestr(name, text)
            else:
                with z.open(name, "w", force_zip64=True) as f:
                    for part in text:
                        f.write(part.encode())


# 2023-01-01 00:00:00 UTC
START = 1672531200


def stamp(seconds):
    """Export.xml's date form of a UTC second."""
    return time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(seconds))


def record(kind, source, start, end, value, unit="count"):
    return (f' <Record type="{kind}" sourceName="{source}" unit="{unit}" '
            f'startDate="{start}" endDate="{end}" value="{value}"/>\n')


# --- the cases ----------------------------------------------------------------------------------

def wide_steps(path, samples):
    """StepCount samples each from 1970 to 2106: one record spans 49,673 UTC days. Each has its
    own value, so none is a copy of another."""
    write_export(path, (record("HKQuantityTypeIdentifierStepCount", "S", "1970-01-01 00:00:00 +0000",
                               "2106-01-01 00:00:00 +0000", 5 + i) for i in range(samples)))


def ecg_file(recorded, samples=8):
    return ("Name,Someone\nDate of Birth,\"Jan 1, 1990\"\n"
            f"Recorded Date,{recorded}\nClassification,Sinus Rhythm\nSymptoms,\n"
            "Software Version,1.90\nDevice,\"Watch6,7\"\nSample Rate,512 hertz\n\n\n"
            "Lead,Lead I\nUnit,µV\n\n" + "".join(f"{(i * 7) % 300 - 150}.5\n" for i in range(samples)))


def same_second_ecgs(path, files):
    """ECG files all recorded in the same second, so each needs a `-2`, `-3`, … id."""
    text = ecg_file("2023-03-04 20:55:07 -0500")
    write_export(path, [], ((f"apple_health_export/electrocardiograms/ecg_2023-03-04_{i}.csv", text)
                            for i in range(files)))


def many_ecgs(path, files):
    """ECG files recorded a second apart (run with --ecg-samples)."""
    def entries():
        for i in range(files):
            yield f"apple_health_export/electrocardiograms/ecg_{i}.csv", ecg_file(stamp(START + i))
    write_export(path, [], entries())


def long_route(path, points):
    """One running workout whose route has `points` points, one a second."""
    end = stamp(START + points)
    workout = (' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" '
               f'startDate="2023-01-01 00:00:00 +0000" endDate="{end}">\n'
               '  <WorkoutRoute sourceName="W" startDate="2023-01-01 00:00:00 +0000" '
               'endDate="2023-01-01 00:00:00 +0000">\n'
               '   <FileReference path="/workout-routes/route_2023-01-01_0.00am.gpx"/>\n'
               '  </WorkoutRoute>\n </Workout>\n')

    def gpx():
        yield '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="bench"><trk><trkseg>\n'
        block = []
        for i in range(points):
            t = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(START + i))
            # About 3 m a second north, turning back every 10 km so the track stays on the map.
            lat = 48.0 + ((i % 6000) if (i // 6000) % 2 == 0 else 6000 - i % 6000) * 0.000027
            block.append(f'<trkpt lon="2.350000" lat="{lat:.6f}"><ele>35.0</ele><time>{t}</time></trkpt>\n')
            if len(block) == 8192:
                yield "".join(block)
                block.clear()
        yield "".join(block) + "</trkseg></trk></gpx>\n"
    write_export(path, [workout], [("apple_health_export/workout-routes/route_2023-01-01_0.00am.gpx", gpx())])


def steps_from_many_sources(path, records):
    """StepCount records a minute apart, each from a source of its own."""
    def lines():
        for i in range(records):
            yield record("HKQuantityTypeIdentifierStepCount", f"source {i}", stamp(START + 60 * i),
                         stamp(START + 60 * i + 30), 10)
    write_export(path, lines())


def overlapping_in_bed(path, samples):
    """InBed samples of one night, each from a source of its own, all overlapping."""
    def lines():
        for i in range(samples):
            minute = i % 60
            yield (f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="bed {i}" '
                   f'startDate="2023-01-01 23:{minute:02d}:00 +0000" endDate="2023-01-02 07:{minute:02d}:00 +0000" '
                   'value="HKCategoryValueSleepAnalysisInBed"/>\n')
    write_export(path, lines())


# name, what, maker, size, extra options, time limit in seconds
CASES = [
    ("wide-steps", "10,000 StepCount samples from 1970 to 2106", wide_steps, 10_000, [], 10),
    ("same-second-ecgs", "10,000 ECG files recorded in the same second", same_second_ecgs, 10_000, [], 10),
    ("many-ecgs-samples", "100,000 ECG files, --ecg-samples", many_ecgs, 100_000, ["--ecg-samples"], 30),
    ("long-route", "one run with a 10,000,000-point route", long_route, 10_000_000, [], 60),
    ("many-sources", "2,000,000 StepCount records, each its own source", steps_from_many_sources, 2_000_000, [], 120),
    ("in-bed-night", "2,000,000 overlapping InBed samples of one night, distinct sources", overlapping_in_bed,
     2_000_000, [], 120),
]


# --- measuring ----------------------------------------------------------------------------------

def folder_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def measure(healthtrail, archive, out, options, seconds_limit):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    peak = [0]
    done = threading.Event()

    def watch():
        while not done.wait(0.2):
            peak[0] = max(peak[0], folder_bytes(out))
    watcher = threading.Thread(target=watch)
    watcher.start()
    start = time.monotonic()
    process = subprocess.Popen(["/usr/bin/time", "-f", "%M %e", healthtrail, "run", archive, "--out", out, "--quiet",
                                "--force", *options], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    # A run is stopped at three times its limit, so a case that is far over it still ends.
    try:
        _, stderr = process.communicate(timeout=3 * seconds_limit)
        timed_out = False
    except subprocess.TimeoutExpired:
        # GNU time and healthtrail are a process group of their own: both are stopped.
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
        timed_out = True
    wall = time.monotonic() - start
    done.set()
    watcher.join()
    peak[0] = max(peak[0], folder_bytes(out))
    lines = stderr.strip().splitlines()
    match = re.fullmatch(r"(\d+) ([\d.]+)", lines[-1]) if lines else None
    rss = int(match.group(1)) / 1024 if match else float("nan")
    message = next((line for line in lines if line.startswith("healthtrail:")), "")
    shutil.rmtree(out, ignore_errors=True)
    return dict(wall=wall, rss=rss, disk=peak[0] / 2**20, timed_out=timed_out,
                exit=None if timed_out else process.returncode, message=message)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--healthtrail", required=True)
    parser.add_argument("--out-dir", default=".bench/hostile")
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    parser.add_argument("--report")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    rows, failed = [], []
    for name, what, make, size, options, seconds_limit in CASES:
        if args.case and name not in args.case:
            continue
        # An archive is named after the code that writes it: a changed case makes a new one.
        code = inspect.getsource(make) + inspect.getsource(write_export) + inspect.getsource(ecg_file) + HEAD + str(size)
        version = hashlib.sha1(code.encode()).hexdigest()[:8]
        archive = os.path.join(args.out_dir, f"{name}-{version}.zip")
        if not os.path.exists(archive):
            for old in os.listdir(args.out_dir):
                if old.startswith(name + "-") and old.endswith(".zip"):
                    os.remove(os.path.join(args.out_dir, old))
            make(archive + ".tmp", size)
            os.replace(archive + ".tmp", archive)
        with zipfile.ZipFile(archive) as z:
            inflated = sum(info.file_size for info in z.infolist()) / 2**20
        zipped = os.path.getsize(archive) / 2**20
        disk_limit = DISK_FACTOR * inflated + DISK_SLACK_MIB
        m = measure(args.healthtrail, archive, os.path.join(args.out_dir, "out"), options, seconds_limit)
        over = []
        if m["timed_out"]:
            over.append(f"stopped after {m['wall']:.0f} s")
        elif m["exit"] != 0:
            over.append(f"exit {m['exit']}: {m['message']}")
        if m["wall"] > seconds_limit:
            over.append(f"{m['wall']:.1f} s > {seconds_limit} s")
        if not m["rss"] <= RSS_LIMIT_MIB:
            over.append(f"{m['rss']:.0f} MiB RSS > {RSS_LIMIT_MIB}")
        if m["disk"] > disk_limit:
            over.append(f"{m['disk']:.0f} MiB disk > {disk_limit:.0f}")
        verdict = "ok" if not over else "FAIL: " + "; ".join(over)
        if over:
            failed.append(name)
        print(f"{name}: {m['wall']:.1f} s, peak RSS {m['rss']:.1f} MiB, peak disk {m['disk']:.1f} MiB "
              f"(zip {zipped:.1f} MiB, inflated {inflated:.1f} MiB): {verdict}", flush=True)
        rows.append(f"| {name} | {what} | {zipped:.2f} / {inflated:.1f} | {m['wall']:.1f} / {seconds_limit} "
                    f"| {m['rss']:.1f} / {RSS_LIMIT_MIB} | {m['disk']:.1f} / {disk_limit:.0f} | {verdict} |")
    if args.report:
        with open(args.report, "w") as f:
            f.write("# Hostile inputs\n\n"
                    "Small archives built to cost far more than their size (`Benchmarks/hostile.py`), one run "
                    "each. Limits: the time per case, " + f"{RSS_LIMIT_MIB} MiB of peak RSS, and a peak disk use "
                    f"of the output folder (staging included) of {DISK_FACTOR} × the inflated size + "
                    f"{DISK_SLACK_MIB} MiB.\n\n"
                    "| case | archive | zip / inflated MiB | wall s / limit | peak RSS MiB / limit "
                    "| peak disk MiB / limit | verdict |\n|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    if failed:
        sys.exit("FAIL: " + ", ".join(failed))


if __name__ == "__main__":
    main()
