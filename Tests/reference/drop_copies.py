#!/usr/bin/env python3
"""Copies of a record, found and removed without HealthTrail: the tests' independent oracle.

    drop_copies.py IN.zip OUT.zip       writes OUT.zip without the copies, prints their counts
    drop_copies.py IN.zip - --scatter N --seed S OUT.zip
                                        writes OUT.zip with N copies of random records added at
                                        random places (a new creationDate each), prints the counts

Two records are the same when their type, sourceName, unit, startDate, endDate and value are, as
export.xml writes them (docs/outputs.md, "Copies of a record"); the first is kept. Records are
read as Apple writes them: one start tag a line, children on the lines up to `</Record>`. The
counts go to standard output as JSON, per record type identifier (prefix included).
"""
import json
import random
import re
import sys
import zipfile

ATTRIBUTE = re.compile(r'([A-Za-z]+)="([^"]*)"')
IDENTITY = ("type", "sourceName", "unit", "startDate", "endDate", "value")


def records(lines):
    """Yields (first line index, last line index, attributes) of each top-level <Record>.

    Records nested in a <Correlation> (blood pressure) are passed over: Apple writes each of
    them at the top level too, and HealthTrail reads them there (docs/outputs.md).
    """
    i = 0
    in_correlation = False
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("<Correlation ") and not line.rstrip().endswith("/>"):
            in_correlation = True
        elif stripped.startswith("</Correlation>"):
            in_correlation = False
        if not in_correlation and stripped.startswith("<Record "):
            end = i
            if not line.rstrip().endswith("/>"):
                while "</Record>" not in lines[end]:
                    end += 1
            yield i, end, dict(ATTRIBUTE.findall(line))
            i = end + 1
        else:
            i += 1


def main_entry(archive):
    names = [n for n in archive.namelist() if n.lower().endswith("/export.xml") or n.lower() == "export.xml"]
    return names[0]


def rewrite(src, dst, transform):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        main = main_entry(zin)
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == main:
                lines = data.decode("utf-8").splitlines(keepends=True)
                data = "".join(transform(lines)).encode("utf-8")
            zout.writestr(info.filename, data)


def drop(lines, counts):
    seen = set()
    keep = [True] * len(lines)
    for first, last, a in records(lines):
        key = tuple(a.get(k) for k in IDENTITY)
        if key in seen:
            counts[a.get("type")] = counts.get(a.get("type"), 0) + 1
            for k in range(first, last + 1):
                keep[k] = False
        else:
            seen.add(key)
    return [line for line, k in zip(lines, keep) if k]


def scatter(lines, n, seed, counts):
    rng = random.Random(seed)
    found = list(records(lines))
    # Copies go among the records of their own type, as a re-syncing app's do.
    starts_of_type = {}
    for first, last, a in found:
        starts_of_type.setdefault(a["type"], []).append(first)
    insertions = {}
    for _ in range(n):
        first, last, a = rng.choice(found)
        at = rng.choice(starts_of_type[a["type"]])
        copy = lines[first:last + 1]
        copy[0] = re.sub(r'creationDate="[^"]*"', 'creationDate="2030-01-01 00:00:00 +0000"', copy[0])
        insertions.setdefault(at, []).extend(copy)
        counts[a["type"]] = counts.get(a["type"], 0) + 1
    out = []
    for i, line in enumerate(lines):
        out.extend(insertions.get(i, []))
        out.append(line)
    out.extend(insertions.get(len(lines), []))
    return out


def main(argv):
    counts = {}
    if "--scatter" in argv:
        n = int(argv[argv.index("--scatter") + 1])
        seed = int(argv[argv.index("--seed") + 1])
        rewrite(argv[1], argv[-1], lambda lines: scatter(lines, n, seed, counts))
    else:
        rewrite(argv[1], argv[2], lambda lines: drop(lines, counts))
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
