#!/usr/bin/env python3
"""Compares healthtrail's figures with the reference reader's.

Usage: compare.py EXPORT.zip OUTPUT_DIR

Runs health_reference.py's rules on EXPORT.zip and compares every figure it computes with
daily.csv, sleep_nights.csv and workouts.csv in OUTPUT_DIR (a `healthtrail run` of that
archive). Prints one line per disagreement and a last line `N passed, N failed`; exits 1 when
any figure disagrees.

Tolerances: CSV files carry rounded numbers and the two sides add the same shares in other
orders, so a figure passes when the two differ by at most
  steps                                  1 step + 1e-7 of the value (a day's pro-rata shares are
                                         rounded once; each sample is kept to 7 digits)
  distance_m, route_distance_m           0.06 m + 2e-6 of the value
  active_kcal, basal_kcal                0.06 kcal + 1e-6 of the value
  in_bed_min, asleep_min, sleep_asleep   0.06 min
An empty field is no data: it equals a reference figure of 0 and nothing else.
"""

import csv
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import health_reference  # noqa: E402

TOLERANCES = {
    "steps": (1.0, 1e-7),
    "distance_m": (0.06, 2e-6),
    "active_kcal": (0.06, 1e-6),
    "basal_kcal": (0.06, 1e-6),
    "in_bed_min": (0.06, 0.0),
    "asleep_min": (0.06, 0.0),
    "sleep_asleep_min": (0.06, 0.0),
    "route_distance_m": (0.06, 2e-6),
}


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def figure(text):
    return 0.0 if text in (None, "") else float(text)


class Tally:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def check(self, where, column, expected, actual_text):
        absolute, relative = TOLERANCES[column]
        actual = figure(actual_text)
        expected = expected or 0.0
        if abs(expected - actual) <= absolute + relative * abs(expected):
            self.passed += 1
        else:
            self.failed += 1
            shown = actual_text if actual_text not in (None, "") else "(empty)"
            print(f"{where} {column}: reference {expected:.3f}, healthtrail {shown} ({actual - expected:+.3f})")

    def missing(self, message):
        self.failed += 1
        print(message)


def compare(archive, out):
    ref = health_reference.reference(archive)
    tally = Tally()

    daily = {row["date"]: row for row in read_rows(os.path.join(out, "daily.csv"))}
    nights_by_date = {}
    for night in ref["nights"]:
        nights_by_date.setdefault(night["date"], []).append(night)
    dates = sorted(set(ref["daily"]) | set(daily) | set(nights_by_date))
    for date in dates:
        expected = ref["daily"].get(date, {})
        row = daily.get(date, {})
        for column in ("steps", "distance_m", "active_kcal", "basal_kcal"):
            if column in expected or row.get(column):
                tally.check(f"daily {date}", column, expected.get(column), row.get(column))
        asleep = sum(n["asleep_min"] for n in nights_by_date.get(date, []))
        if date in nights_by_date or row.get("sleep_asleep_min"):
            tally.check(f"daily {date}", "sleep_asleep_min", asleep, row.get("sleep_asleep_min"))

    rows_by_date = {}
    for row in read_rows(os.path.join(out, "sleep_nights.csv")):
        rows_by_date.setdefault(row["date"], []).append(row)
    for date in sorted(set(nights_by_date) | set(rows_by_date)):
        expected = sorted(nights_by_date.get(date, []), key=lambda n: n["bed_start_utc"])
        actual = sorted(rows_by_date.get(date, []), key=lambda r: r["bed_start_utc"])
        for night, row in zip(expected, actual):
            where = f"night {date} (reference {night['bed_start_utc']}..{night['wake_end_utc']})"
            for column in ("in_bed_min", "asleep_min"):
                tally.check(where, column, night[column], row[column])
        for night in expected[len(actual) :]:
            tally.missing(f"night {date}: only the reference has it ({night['bed_start_utc']}..{night['wake_end_utc']}, asleep {night['asleep_min']:.1f} min)")
        for row in actual[len(expected) :]:
            tally.missing(f"night {date}: only healthtrail has it ({row['bed_start_utc']}..{row['wake_end_utc']}, asleep {row['asleep_min']} min)")

    workouts = {row["workout_id"]: row for row in read_rows(os.path.join(out, "workouts.csv"))}
    for workout_id in sorted(set(workouts) | set(ref["route_distance_m"])):
        if workout_id not in workouts:
            tally.missing(f"workout {workout_id}: only the reference has it")
            continue
        expected = ref["route_distance_m"].get(workout_id)
        actual = workouts[workout_id].get("route_distance_m")
        if expected is None and actual in (None, ""):
            continue
        tally.check(f"workout {workout_id}", "route_distance_m", expected, actual)

    print(f"{tally.passed} passed, {tally.failed} failed")
    return tally.failed == 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.exit(0 if compare(sys.argv[1], sys.argv[2]) else 1)
