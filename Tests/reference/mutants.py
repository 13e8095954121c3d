#!/usr/bin/env python3
"""Seeded mutants of an export archive, one kind of damage each, for compare.py.

Usage: mutants.py KIND SEED IN.zip OUT.zip
       mutants.py --kinds            (lists the kinds)

The archive is rewritten entry by entry; export.xml is cut into its top-level elements (a
Record with its metadata is one element) and GPX files into their track points, so a mutant
moves whole elements and never breaks the XML. The same kind, seed and input give the same
bytes.
"""

import random
import re
import sys
import zipfile
from datetime import datetime, timedelta, timezone

TOP_LEVEL = re.compile(rb"\n[ \t]*<(Record|Workout|Correlation|ActivitySummary)\b")
DATE_ATTR = re.compile(rb'(startDate|endDate|creationDate)="([^"]+)"')


def elements(xml):
    """(head, [element bytes, each with its leading newline], tail) of an export.xml."""
    chunks, cursor, head_end = [], 0, None
    while True:
        match = TOP_LEVEL.search(xml, cursor)
        if match is None:
            break
        start = match.start()
        if head_end is None:
            head_end = start
        name = match.group(1)
        open_end = xml.index(b">", match.end())
        if xml[open_end - 1 : open_end] == b"/":
            end = open_end + 1
        else:
            close = b"</" + name + b">"
            end = xml.index(close, open_end) + len(close)
        if start != cursor and chunks:
            chunks[-1] += xml[cursor:start]  # whatever lies between elements stays with the one before
        chunks.append(xml[start:end])
        cursor = end
    if head_end is None:
        return xml, [], b""
    return xml[:head_end], chunks, xml[cursor:]


def attribute(element, name):
    match = re.search(rb"\b" + name.encode() + rb'="([^"]*)"', element)
    return match.group(1).decode() if match else None


def set_attribute(element, name, value):
    pattern = re.compile(rb"\b" + name.encode() + rb'="[^"]*"')
    replacement = name.encode() + b'="' + value.encode() + b'"'
    if pattern.search(element):
        return pattern.sub(lambda _: replacement, element, count=1)
    return element.replace(b"<Record ", b"<Record " + replacement + b" ", 1)


def export_date(text):
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z")


def export_text(moment):
    return moment.strftime("%Y-%m-%d %H:%M:%S %z")


def is_record(element, kind=None):
    if not element.lstrip().startswith(b"<Record"):
        return False
    return kind is None or attribute(element, "type") == kind


# ---------------------------------------------------------------------------------------------
# Kinds. Each takes (rng, head, elements, gpx {name: bytes}) and returns (elements, gpx).


def copies(rng, chunks, gpx):
    """Thousands of exact copies of records (another creationDate, device and version),
    scattered at random places: the same record must count once."""
    records = [c for c in chunks if is_record(c)]
    result = list(chunks)
    for _ in range(min(3000, 3 * len(records))):
        original = rng.choice(records)
        copy = original
        created = attribute(copy, "creationDate")
        if created:
            later = export_date(created) + timedelta(days=rng.randint(1, 400), seconds=rng.randint(0, 86399))
            copy = set_attribute(copy, "creationDate", export_text(later))
        copy = set_attribute(copy, "sourceVersion", f"{rng.randint(1, 30)}.{rng.randint(0, 9)}")
        result.insert(rng.randrange(len(result) + 1), copy)
    return result, gpx


def copies_in_place(rng, chunks, gpx):
    """An exact copy of one record in three, right after it (another creationDate): copies
    alone, in the file order the export has."""
    result = []
    for chunk in chunks:
        result.append(chunk)
        if is_record(chunk) and rng.random() < 1 / 3:
            copy = chunk
            created = attribute(copy, "creationDate")
            if created:
                copy = set_attribute(copy, "creationDate", export_text(export_date(created) + timedelta(days=rng.randint(1, 400))))
            result.append(copy)
    return result, gpx


def scatter(rng, chunks, gpx):
    """Fifty records of the daily types moved to random places in the file, among other
    types' records: the figures must not depend on where a record stands."""
    daily = (b"StepCount", b"DistanceWalkingRunning", b"ActiveEnergyBurned", b"BasalEnergyBurned")
    candidates = [i for i, c in enumerate(chunks) if is_record(c) and any(t in c[:120] for t in daily)]
    picked = sorted(rng.sample(candidates, min(50, len(candidates))), reverse=True)
    result = list(chunks)
    moved = [result.pop(i) for i in picked]
    for chunk in moved:
        result.insert(rng.randrange(len(result) + 1), chunk)
    return result, gpx


def shuffle(rng, chunks, gpx):
    """Records of each type in a random order (the export writes them by time)."""
    positions = {}
    for index, chunk in enumerate(chunks):
        if is_record(chunk):
            positions.setdefault(attribute(chunk, "type"), []).append(index)
    result = list(chunks)
    for kind in sorted(positions):
        indices = positions[kind]
        moved = [chunks[i] for i in indices]
        rng.shuffle(moved)
        for index, chunk in zip(indices, moved):
            result[index] = chunk
    return result, gpx


def long_record(template, kind, source, value, unit, start, end, metadata=b""):
    element = (
        f'\n <Record type="{kind}" sourceName="{source}" sourceVersion="1.0" unit="{unit}" '
        f'creationDate="{export_text(end)}" startDate="{export_text(start)}" endDate="{export_text(end)}" value="{value}"'
    ).encode()
    if unit is None:
        element = element.replace(b' unit="None"', b"")
    return element + (b">\n" + metadata + b" </Record>" if metadata else b"/>")


def span_of(chunks):
    """The first start and last end among the records, with the offset the export stamps."""
    starts = [export_date(attribute(c, "startDate")) for c in chunks if is_record(c) and attribute(c, "startDate")]
    ends = [export_date(attribute(c, "endDate")) for c in chunks if is_record(c) and attribute(c, "endDate")]
    return min(starts), max(ends)


def long_steps(rng, chunks, gpx):
    """A step sample from another app lasting ten days: its steps count pro rata, only where
    no better source counted any."""
    first, last = span_of(chunks)
    start = first + timedelta(days=rng.randint(1, 3), minutes=rng.randint(0, 1439))
    element = long_record(None, "HKQuantityTypeIdentifierStepCount", "Pedometer Plus", rng.randint(40000, 90000), "count", start, start + timedelta(days=10))
    result = list(chunks)
    result.insert(rng.randrange(len(result) + 1), element)
    return result, gpx


def long_sleep(rng, chunks, gpx):
    """An in-bed sample of forty hours from another app: longer than any night can be."""
    first, last = span_of(chunks)
    start = first + timedelta(days=rng.randint(2, 5), hours=21)
    element = long_record(None, "HKCategoryTypeIdentifierSleepAnalysis", "Sleep Tracker", "HKCategoryValueSleepAnalysisInBed", None, start, start + timedelta(hours=40))
    result = list(chunks)
    result.insert(rng.randrange(len(result) + 1), element)
    return result, gpx


def long_sighting(rng, chunks, gpx):
    """A ten-day sample naming another zone (America/New_York) around days of sightings at
    home: its length must not let it outweigh them."""
    first, last = span_of(chunks)
    start = first + timedelta(days=rng.randint(1, 3), hours=rng.randint(0, 23))
    metadata = b'  <MetadataEntry key="HKTimeZone" value="America/New_York"/>\n'
    element = long_record(None, "HKQuantityTypeIdentifierBodyMass", "Scale App", "70", "kg", start, start + timedelta(days=10), metadata)
    result = list(chunks)
    result.insert(rng.randrange(len(result) + 1), element)
    return result, gpx


GPX_TIME = re.compile(rb"<time>([^<]+)</time>")
TRKPT = re.compile(rb"<trkpt\b.*?</trkpt>", re.S)


def gpx_points(data):
    return list(TRKPT.finditer(data))


def shift_point(data, point, delta):
    text = point.group(0)
    match = GPX_TIME.search(text)
    moment = datetime.fromisoformat(match.group(1).decode().replace("Z", "+00:00")) + delta
    new = text[: match.start(1)] + moment.strftime("%Y-%m-%dT%H:%M:%SZ").encode() + text[match.end(1) :]
    return data[: point.start()] + new + data[point.end() :]


def clock_jumps(rng, chunks, gpx):
    """In every route file one point hours late, one hours early and one at the time of the
    point before it: a GPS clock that jumps."""
    result = {}
    for name in sorted(gpx):
        data = gpx[name]
        points = gpx_points(data)
        if len(points) < 20:
            result[name] = data
            continue
        late, early, still = rng.sample(range(2, len(points) - 2), 3)
        edits = {late: timedelta(hours=rng.randint(2, 6)), early: -timedelta(hours=rng.randint(2, 6))}
        for index in sorted(edits, reverse=True):
            data = shift_point(data, gpx_points(data)[index], edits[index])
        points = gpx_points(data)
        if still not in edits and still - 1 not in edits:
            previous = GPX_TIME.search(points[still - 1].group(0)).group(1)
            point = points[still]
            text = GPX_TIME.sub(b"<time>" + previous + b"</time>", point.group(0), count=1)
            data = data[: point.start()] + text + data[point.end() :]
        result[name] = data
    return chunks, result


def edge_values(rng, chunks, gpx):
    """Quantities at the edges of their range: zero, a tiny and a huge finite number."""
    result = list(chunks)
    candidates = [i for i, c in enumerate(chunks) if is_record(c, "HKQuantityTypeIdentifierStepCount") or is_record(c, "HKQuantityTypeIdentifierDistanceWalkingRunning")]
    for index, value in zip(rng.sample(candidates, min(6, len(candidates))), ["0", "0", "1e-300", "0.000001", "123456789", "1e9"]):
        result[index] = set_attribute(result[index], "value", value)
    return result, gpx


def edge_out_of_range(rng, chunks, gpx):
    """Numbers and dates outside their range: NaN, infinity, 1e400 and years 1899 and 2201;
    each must be a counted fault and count in no figure."""
    result = list(chunks)
    candidates = [i for i, c in enumerate(chunks) if is_record(c, "HKQuantityTypeIdentifierStepCount") or is_record(c, "HKQuantityTypeIdentifierActiveEnergyBurned")]
    chosen = rng.sample(candidates, min(7, len(candidates)))
    for index, value in zip(chosen[:4], ["NaN", "inf", "1e400", "-inf"]):
        result[index] = set_attribute(result[index], "value", value)
    for index, year in zip(chosen[4:], ["1899", "2201", "2201"]):
        element = result[index]
        for name in ("startDate", "endDate"):
            text = attribute(element, name)
            element = set_attribute(element, name, year + text[4:])
        result[index] = element
    return result, gpx


def edge_dates(rng, chunks, gpx):
    """Dates at the very edge of the years 1900-2200 that are still in range."""
    result = list(chunks)
    candidates = [i for i, c in enumerate(chunks) if is_record(c, "HKQuantityTypeIdentifierStepCount")]
    for index, (start, end) in zip(
        rng.sample(candidates, min(2, len(candidates))),
        [("1900-01-01 12:00:00 +0000", "1900-01-01 12:05:00 +0000"), ("2200-12-31 10:00:00 +0000", "2200-12-31 10:30:00 +0000")],
    ):
        result[index] = set_attribute(set_attribute(result[index], "startDate", start), "endDate", end)
    return result, gpx


KINDS = {
    "copies": copies,
    "copies-in-place": copies_in_place,
    "scatter": scatter,
    "shuffle": shuffle,
    "long-steps": long_steps,
    "long-sleep": long_sleep,
    "long-sighting": long_sighting,
    "clock-jumps": clock_jumps,
    "edge-values": edge_values,
    "edge-dates": edge_dates,
    "out-of-range": edge_out_of_range,
}


def mutate(kind, seed, source, target):
    rng = random.Random(f"{kind}:{seed}")
    with zipfile.ZipFile(source) as archive:
        infos = archive.infolist()
        contents = {info.filename: archive.read(info) for info in infos}
    main = next(
        n for n in sorted(contents) if n.count("/") == 1 and n.lower().endswith(".xml") and not n.lower().endswith("_cda.xml")
    )
    head, chunks, tail = elements(contents[main])
    gpx = {n: d for n, d in contents.items() if n.lower().endswith(".gpx")}
    chunks, gpx = KINDS[kind](rng, chunks, gpx)
    contents[main] = head + b"".join(chunks) + tail
    contents.update(gpx)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in infos:
            entry = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            entry.compress_type = zipfile.ZIP_STORED if info.is_dir() else zipfile.ZIP_DEFLATED
            entry.external_attr = info.external_attr
            archive.writestr(entry, contents[info.filename])


if __name__ == "__main__":
    if sys.argv[1:] == ["--kinds"]:
        print("\n".join(KINDS))
    elif len(sys.argv) == 5 and sys.argv[1] in KINDS:
        mutate(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        raise SystemExit(__doc__)
