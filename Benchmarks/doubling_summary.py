#!/usr/bin/env python3
"""Compares the 720-day bench (latest.json) with the 1440-day one (double.json): the
ratio to the floor and the peak RSS should stay flat (RSS within 10 %) when the archive doubles.

Usage: doubling_summary.py LATEST.json DOUBLE.json OUT.md
Prints one line and writes it, with the figures, to OUT.md (a report: it exits 0 either way).
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    base, double = (json.load(open(p)) for p in sys.argv[1:3])
    rss = [r["healthtrail"]["medianPeakRSSKiB"] / 1024 for r in (base, double)]
    growth = (rss[1] / rss[0] - 1) * 100
    line = (f"archive doubled: peak RSS {rss[0]:.1f} → {rss[1]:.1f} MiB ({growth:+.1f} %, {'within' if abs(growth) <= 10 else 'OUTSIDE'} the 10 % target); "
            f"ratio to the floor {base['ratioOfMedians']:.2f}× → {double['ratioOfMedians']:.2f}× "
            f"(per-round medians {base['medianOfRoundRatios']:.2f}× → {double['medianOfRoundRatios']:.2f}×)")
    with open(sys.argv[3], "w") as out:
        out.write("### When the archive doubles\n\n")
        out.write(f"- 720 days: {base['date']}, {base['host']}\n")
        out.write(f"- 1440 days: {double['date']}, {double['host']}\n\n")
        out.write(line + "\n")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
