#!/usr/bin/env python3
"""A reference reader of Apple Health exports, written from docs/outputs.md alone.

It computes the figures of daily.csv (steps, distance, active and basal energy), of
sleep_nights.csv (each night's date, time in bed and time asleep) and each workout's
route_distance_m, by the rules docs/outputs.md states, in another language and with other
parsers (zipfile, xml.sax) than HealthTrail's own, so that the two can check each other.
It never reads HealthTrail's sources; where the documentation leaves a rule open, the choice
made here is marked "DOCS GAP" and listed in FINDINGS, with the sentence the docs could say.

Usage: health_reference.py EXPORT.zip  (prints the figures as JSON)
       health_reference.py --findings (the rules docs/outputs.md leaves open)
"""

import bisect
import io
import json
import math
import sys
import xml.sax
import zipfile
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# Choices the documentation does not make (see FINDINGS).
SIGHTING_MAX_S = 24 * 3600  # Days and time zones: a sighting covers at most its first 24 hours
SLEEP_SAMPLE_MAX_S = 24 * 3600  # One source per time span: a longer sleep sample is skipped
AFTERNOON = (12, 18)  # DOCS GAP 4: local hours [12, 18) are "the afternoon"
EARTH_RADIUS_M = 6371008.8  # DOCS GAP 6: haversine on the mean Earth radius (IUGG)

FINDINGS = [
    "4. 'Not in the afternoon' has no hours. Proposed: 'the afternoon is 12:00 to 18:00 local "
    "time at the cluster's middle (halfway between its first start and last end)'.",
    "5. Source ranking: the docs do not say how a source is known to be an Apple Watch or an "
    "iPhone (sourceName is the device's own name, 'Eric's Work iPhone'). This reader uses the "
    "record's device model (model:Watch / model:iPhone), else the words Watch / iPhone in the "
    "source name. A zero-length sample counts when no better source covers its instant.",
    "6. Route distance: 'haversine' names no Earth radius. Proposed: 'on a sphere of radius "
    "6,371,008.8 m'. 'On foot' lists running, walking, hiking and '…': the full list is needed.",
    "7. GPS clocks: nothing is said of points whose time runs back, stands still or leaps "
    "ahead. Proposed: 'Points whose times are not in order count nowhere (state glitch): of a "
    "route file's points, the longest run whose times strictly increase is kept; of fixes at one "
    "time, the first.' Whether a step is then counted across such a point (as across a glitch) "
    "must be said too: this reader counts it.",
    "8. Vehicle windows: which points of 'a minute or more' are marked is not said. This "
    "reader takes a window from a point to the first one 60 s or more later, and when both "
    "speeds exceed 8.5 m/s marks the trusted points from the first one the window reaches by a "
    "step faster than 8.5 m/s to the last one it leaves by such a step (the point a single fast "
    "step reaches, when that is the window's only step); then each point reached from a marked "
    "one by a fast step and left by one (or ending the track).",
    "9. Where a lower-ranked sample's counted part lies in time (for the day it goes to) is not "
    "said. This reader spreads each sample's value evenly over its span and dates the parts no "
    "better source covers where they lie.",
]

STEPS = "HKQuantityTypeIdentifierStepCount"
DISTANCE = "HKQuantityTypeIdentifierDistanceWalkingRunning"
ACTIVE = "HKQuantityTypeIdentifierActiveEnergyBurned"
BASAL = "HKQuantityTypeIdentifierBasalEnergyBurned"
SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"
DAILY_TYPES = {STEPS: "steps", DISTANCE: "distance_m", ACTIVE: "active_kcal", BASAL: "basal_kcal"}

# "Every quantity is converted to one unit per kind" (Units).
UNIT_FACTORS = {
    STEPS: {"count": 1.0},
    DISTANCE: {"m": 1.0, "km": 1000.0, "cm": 0.01, "mm": 0.001, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144, "in": 0.0254},
    ACTIVE: {"kcal": 1.0, "Cal": 1.0, "kJ": 1 / 4.184, "cal": 0.001},
    BASAL: {"kcal": 1.0, "Cal": 1.0, "kJ": 1 / 4.184, "cal": 0.001},
}

IN_BED = "HKCategoryValueSleepAnalysisInBed"
AWAKE = "HKCategoryValueSleepAnalysisAwake"
ASLEEP = {
    "HKCategoryValueSleepAnalysisAsleep",
    "HKCategoryValueSleepAnalysisAsleepUnspecified",
    "HKCategoryValueSleepAnalysisAsleepCore",
    "HKCategoryValueSleepAnalysisAsleepDeep",
    "HKCategoryValueSleepAnalysisAsleepREM",
}

# "Speed ceilings, per second of a step" (Active points).
ON_FOOT = {"Running", "Walking", "Hiking"}
CEILING_ON_FOOT, CEILING_CYCLING, CEILING_SWIMMING, CEILING_OTHER = 12.5, 35.0, 4.0, 70.0
MAX_ACCURACY_M = 50.0
REACH_MARGIN_M = 25.0
REACQUIRE_FIXES = 5
VEHICLE_SPEED = 8.5
VEHICLE_WINDOW_S = 60.0
QUARTER_HOUR = 900


# ---------------------------------------------------------------------------------------------
# Dates


def parse_export_date(text):
    """'2016-08-05 10:00:00 +0200' as (Unix seconds, offset seconds); None when it does not parse
    or lies outside the years 1900-2200 (docs/bad-input.md: a malformed record)."""
    # Sliced by hand rather than by strptime, which costs most of a run on a large export.
    try:
        text = text.strip()
        if len(text) != 25 or text[4] != "-" or text[7] != "-" or text[10] != " " or text[19] != " ":
            return None
        year = int(text[0:4])
        moment = datetime(year, int(text[5:7]), int(text[8:10]), int(text[11:13]), int(text[14:16]), int(text[17:19]), tzinfo=timezone.utc)
        sign = {"+": 1, "-": -1}[text[20]]
        offset = sign * (int(text[21:23]) * 3600 + int(text[23:25]) * 60)
    except (ValueError, KeyError, AttributeError):
        return None
    if not 1900 <= year <= 2200:
        return None
    return moment.timestamp() - offset, offset


def parse_gpx_time(text):
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None or not 1900 <= moment.year <= 2200:
        return None
    return moment.timestamp()


def utc_text(seconds):
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------------------------------------
# Reading the archive


class DoctypeDropper(io.RawIOBase):
    """export.xml with its internal DTD replaced by blank lines: iOS 16 wrote broken ones
    (docs/bad-input.md), and it declares nothing needed here. Streams line by line."""

    def __init__(self, raw):
        self.lines = iter(raw)
        self.pending = b""
        self.state = "before"  # before, inside, after

    def readable(self):
        return True

    def readinto(self, buffer):
        while not self.pending:
            line = next(self.lines, None)
            if line is None:
                return 0
            if self.state == "before" and b"<!DOCTYPE" in line:
                head, _, rest = line.partition(b"<!DOCTYPE")
                if b"[" not in rest:
                    self.state = "after"
                    line = head + b"\n"
                else:
                    self.state = "inside"
                    line, rest = head, rest
                    if b"]>" in rest:
                        self.state = "after"
                        line = head + rest.split(b"]>", 1)[1]
                    else:
                        line = head + b"\n"
            elif self.state == "inside":
                if b"]>" in line:
                    self.state = "after"
                    line = line.split(b"]>", 1)[1]
                else:
                    line = b"\n"
            self.pending = line
        count = min(len(buffer), len(self.pending))
        buffer[:count] = self.pending[:count]
        self.pending = self.pending[count:]
        return count


class ExportHandler(xml.sax.ContentHandler):
    """Keeps what the figures need: the four daily quantities, sleep samples, time-zone
    sightings and workouts. Records nested in a Correlation are skipped (Apple writes them at
    the top level too)."""

    def __init__(self):
        super().__init__()
        self.path = []
        self.samples = {kind: [] for kind in DAILY_TYPES}
        self.sleep = []
        self.sightings = []  # (start, end, zone name)
        self.workouts = []
        self.record = None
        self.workout = None
        self.faults = 0

    def startElement(self, name, attrs):
        parent = self.path[-1] if self.path else None
        self.path.append(name)
        if name == "Record" and parent == "HealthData":
            self.record = {"attrs": dict(attrs), "zone": None}
        elif name == "Workout" and parent == "HealthData":
            self.workout = {"attrs": dict(attrs), "zone": None, "files": [], "events": [], "parts": [], "locations": []}
        elif name == "MetadataEntry" and attrs.get("key") == "HKTimeZone":
            if parent == "Record" and self.record is not None:
                self.record["zone"] = attrs.get("value")
            elif parent == "Workout" and self.workout is not None:
                self.workout["zone"] = attrs.get("value")
        elif self.workout is not None:
            if name == "FileReference":
                self.workout["files"].append(attrs.get("path", ""))
            elif name == "WorkoutEvent":
                self.workout["events"].append(dict(attrs))
            elif name == "WorkoutActivity":
                self.workout["parts"].append(dict(attrs))
            elif name == "Location":
                self.workout["locations"].append(dict(attrs))

    def endElement(self, name):
        self.path.pop()
        if name == "Record" and self.record is not None and len(self.path) == 1:
            self.finish_record(self.record)
            self.record = None
        elif name == "Workout" and self.workout is not None and len(self.path) == 1:
            self.finish_workout(self.workout)
            self.workout = None

    def finish_record(self, record):
        attrs = record["attrs"]
        start, end = parse_export_date(attrs.get("startDate")), parse_export_date(attrs.get("endDate"))
        if start is None or end is None:
            self.faults += 1
            return
        kind = attrs.get("type", "")
        if record["zone"]:
            self.sightings.append((start[0], end[0], record["zone"]))
        source = attrs.get("sourceName", "")
        device = attrs.get("device", "")
        if kind in DAILY_TYPES:
            value = number(attrs.get("value"))
            if value is None:
                self.faults += 1
                return
            factor = UNIT_FACTORS[kind].get(attrs.get("unit", ""))
            if factor is None:
                return  # an unknown unit is left out of sums
            # The identity of a record: copies of it (docs gap 1) count once.
            identity = (kind, source, attrs.get("unit", ""), start[0], end[0], value)
            self.samples[kind].append(
                {"id": identity, "start": start[0], "end": end[0], "stamped": start[1], "value": value * factor, "source": source, "device": device}
            )
        elif kind == SLEEP:
            identity = (kind, source, attrs.get("unit", ""), start[0], end[0], attrs.get("value"))
            self.sleep.append(
                {"id": identity, "start": start[0], "end": end[0], "stamped": end[1], "stage": attrs.get("value"), "source": source, "device": device}
            )

    def finish_workout(self, workout):
        attrs = workout["attrs"]
        start, end = parse_export_date(attrs.get("startDate")), parse_export_date(attrs.get("endDate"))
        if start is None or end is None:
            self.faults += 1
            return
        workout["start"], workout["end"], workout["stamped"] = start[0], end[0], start[1]
        self.workouts.append(workout)


def export_entry(names):
    """The export's main XML: apple_health_export/<name>.xml that is not the CDA file
    (export.xml, Export.xml, 导出.xml)."""
    candidates = [
        n for n in names if n.count("/") == 1 and n.lower().endswith(".xml") and not n.lower().endswith("_cda.xml")
    ]
    if not candidates:
        raise SystemExit("no export.xml in the archive")
    return sorted(candidates)[0]


def read_gpx(stream):
    """The track points of a GPX file, in file order: time, lat, lon, horizontal accuracy."""
    points = []

    class Handler(xml.sax.ContentHandler):
        def __init__(self):
            super().__init__()
            self.point, self.text, self.field = None, "", None

        def startElement(self, name, attrs):
            if name == "trkpt":
                self.point = {"lat": number(attrs.get("lat")), "lon": number(attrs.get("lon")), "time": None, "hacc": 0.0}
            elif self.point is not None and name in ("time", "hAcc"):
                self.field, self.text = name, ""

        def characters(self, content):
            if self.field:
                self.text += content

        def endElement(self, name):
            if self.point is None:
                return
            if name == self.field == "time":
                self.point["time"] = parse_gpx_time(self.text)
            elif name == self.field == "hAcc":
                self.point["hacc"] = number(self.text) or 0.0
            if name == self.field:
                self.field = None
            if name == "trkpt":
                p = self.point
                if p["time"] is not None and p["lat"] is not None and p["lon"] is not None and abs(p["lat"]) <= 90 and abs(p["lon"]) <= 180:
                    points.append(p)
                self.point = None

    xml.sax.parse(stream, Handler())
    return points


def read_archive(path):
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        main = export_entry(names)
        handler = ExportHandler()
        with archive.open(main) as raw:
            xml.sax.parse(io.BufferedReader(DoctypeDropper(raw)), handler)
        root = main.split("/")[0]
        routes = {}
        for name in names:
            if name.startswith(root + "/workout-routes/") and name.lower().endswith(".gpx"):
                with archive.open(name) as stream:
                    routes[name[len(root) :]] = read_gpx(stream)
    return handler, routes


# ---------------------------------------------------------------------------------------------
# Intervals


def merge(intervals):
    """Sorted, disjoint union of (start, end) intervals of positive length."""
    result = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if result and start <= result[-1][1]:
            result[-1][1] = max(result[-1][1], end)
        else:
            result.append([start, end])
    return [(a, b) for a, b in result]


def subtract(start, end, covered):
    """The parts of [start, end] that the sorted disjoint `covered` intervals leave free."""
    parts, cursor = [], start
    first = max(0, bisect.bisect_right(covered, (start, math.inf)) - 1)
    for a, b in covered[first:]:
        if a >= end:
            break
        if b <= cursor:
            continue
        if a > cursor:
            parts.append((cursor, a))
        cursor = max(cursor, b)
    if cursor < end:
        parts.append((cursor, end))
    return parts


def covers(instant, covered):
    index = bisect.bisect_right(covered, (instant, math.inf)) - 1
    return index >= 0 and covered[index][0] <= instant < covered[index][1]


def length(intervals):
    return sum(b - a for a, b in intervals)


# ---------------------------------------------------------------------------------------------
# Source priority ("One source per time span")


def source_rank(source, devices):
    """Apple Watch, then iPhone, then other apps by name (docs gap 5 on how each is known)."""
    models = " ".join(devices)
    if "model:Watch" in models or ("model:" not in models and "Watch" in source):
        return (0, source)
    if "model:iPhone" in models or ("model:" not in models and "iPhone" in source):
        return (1, source)
    return (2, source)


def rank_sources(samples):
    devices = {}
    for sample in samples:
        devices.setdefault(sample["source"], set()).add(sample["device"])
    return sorted(devices, key=lambda source: source_rank(source, devices[source]))


def distinct(samples):
    """One sample per identity: exact copies count once."""
    seen, result = set(), []
    for sample in samples:
        if sample["id"] not in seen:
            seen.add(sample["id"])
            result.append(sample)
    return result


def counted_shares(samples):
    """(start, end, value, stamped offset) shares that count: every part of a sample that no
    better-ranked source covers, with its value pro rata; a zero-length sample whole or not."""
    shares = []
    by_source = {}
    for sample in samples:
        by_source.setdefault(sample["source"], []).append(sample)
    covered = []
    for source in rank_sources(samples):
        own = by_source[source]
        for sample in own:
            start, end, value = sample["start"], sample["end"], sample["value"]
            if end <= start:
                if not covers(start, covered):
                    shares.append((start, start, value, sample["stamped"]))
                continue
            for a, b in subtract(start, end, covered):
                shares.append((a, b, value * (b - a) / (end - start), sample["stamped"]))
        covered = merge(covered + [(s["start"], s["end"]) for s in own])
    return shares


# ---------------------------------------------------------------------------------------------
# Time-zone timeline ("Days and time zones")


class Timeline:
    """Which zone holds at each instant, from the sightings; None when the export names none
    (then each sample is dated at its stamped offset)."""

    def __init__(self, sightings):
        usable = []
        for start, end, name in sightings:
            zone = known_zone(name)
            if zone is None:
                continue
            usable.append((start, min(max(start, end), start + SIGHTING_MAX_S), name))
        usable.sort()
        # A sighting wholly inside one of another zone is not used.
        kept = [s for s in usable if not inside_other(s, usable)]
        stays = []  # [start, end, zone name]
        for start, end, name in kept:
            if stays and stays[-1][2] == name:
                stays[-1][1] = max(stays[-1][1], end)
            else:
                stays.append([start, end, name])
        # Where stays overlap, the later one's zone holds from its start.
        for earlier, later in zip(stays, stays[1:]):
            earlier[1] = min(earlier[1], later[0])
        self.changes = []  # (instant, zone name) the zone holds from
        for index, (start, end, name) in enumerate(stays):
            if index == 0:
                self.changes.append((-math.inf, name))
                continue
            previous_end, previous = stays[index - 1][1], stays[index - 1][2]
            self.changes.append((journey_switch(previous_end, previous, start, name), name))
        self.instants = [c[0] for c in self.changes]
        self.cache = {}

    def zone_at(self, instant):
        if not self.changes:
            return None
        return self.changes[bisect.bisect_right(self.instants, instant) - 1][1]

    def offset(self, instant, stamped):
        """The offset dating `instant`: the zone's at the start of its quarter hour of UTC."""
        quarter = math.floor(instant / QUARTER_HOUR) * QUARTER_HOUR
        if not self.changes:
            return stamped
        if quarter not in self.cache:
            zone = ZoneInfo(self.zone_at(quarter))
            moment = datetime.fromtimestamp(quarter, timezone.utc).astimezone(zone)
            self.cache[quarter] = int(moment.utcoffset().total_seconds())
        return self.cache[quarter]

    def local(self, instant, stamped):
        return datetime.fromtimestamp(instant + self.offset(instant, stamped), timezone.utc).replace(tzinfo=None)


def known_zone(name):
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        return None


def inside_other(sighting, sightings):
    start, end, name = sighting
    return any(o[2] != name and o[0] <= start and end <= o[1] and (o[0], o[1]) != (start, end) for o in sightings)


def journey_switch(last_seen, previous, first_seen, following):
    """Between the last sighting of `previous` and the first of `following`: `previous` holds
    until its next midnight; the next zone takes over there when its date is then the day
    before or the same (a day ends once midnight has passed in both), else at its first sighting."""
    old, new = ZoneInfo(previous), ZoneInfo(following)
    local = datetime.fromtimestamp(last_seen, timezone.utc).astimezone(old)
    midnight = datetime(local.year, local.month, local.day, tzinfo=old) + timedelta(days=1)
    midnight_instant = midnight.timestamp()
    if first_seen <= midnight_instant:
        return first_seen
    new_date = datetime.fromtimestamp(midnight_instant, timezone.utc).astimezone(new).date()
    return midnight_instant if new_date <= midnight.date() else first_seen


# ---------------------------------------------------------------------------------------------
# daily.csv


def daily_figures(handler, timeline):
    """{date: {column: value}} for steps, distance_m, active_kcal, basal_kcal."""
    days = {}
    for kind, column in DAILY_TYPES.items():
        for start, end, value, stamped in counted_shares(distinct(handler.samples[kind])):
            for date, share in split_by_day(start, end, value, stamped, timeline):
                days.setdefault(date, {}).setdefault(column, 0.0)
                days[date][column] += share
    return days


def split_by_day(start, end, value, stamped, timeline):
    """A share spread evenly over its time, cut at the quarter hours of UTC, each dated by its
    quarter hour's start, so a share crossing local midnight goes to both days."""
    if end <= start:
        quarter = math.floor(start / QUARTER_HOUR) * QUARTER_HOUR
        return [(timeline.local(quarter, stamped).date().isoformat(), value)]
    pieces = {}
    cursor = start
    while cursor < end:
        quarter = math.floor(cursor / QUARTER_HOUR) * QUARTER_HOUR
        boundary = min(end, quarter + QUARTER_HOUR)
        date = timeline.local(quarter, stamped).date().isoformat()
        pieces[date] = pieces.get(date, 0.0) + value * (boundary - cursor) / (end - start)
        cursor = boundary
    return list(pieces.items())


# ---------------------------------------------------------------------------------------------
# sleep_nights.csv


def sleep_nights(handler, timeline):
    samples = [s for s in distinct(handler.sleep) if s["end"] - s["start"] <= SLEEP_SAMPLE_MAX_S and s["end"] >= s["start"]]
    samples.sort(key=lambda s: (s["start"], s["end"]))
    clusters, reach = [], -math.inf
    for sample in samples:
        if clusters and sample["start"] - reach < 3600:
            clusters[-1].append(sample)
        else:
            clusters.append([sample])
        reach = max(reach, sample["end"]) if len(clusters[-1]) > 1 else sample["end"]
    nights = []
    for cluster in clusters:
        first, last = cluster[0]["start"], max(s["end"] for s in cluster)
        middle = (first + last) / 2
        hour = timeline.local(middle, cluster[0]["stamped"]).hour
        if AFTERNOON[0] <= hour < AFTERNOON[1]:
            continue  # a nap
        night = night_figures(cluster, timeline)
        if night:
            nights.append(night)
    # One night per date: of clusters ending on one date the one with the most time asleep
    # (then in bed) is the night, the others are naps.
    best = {}
    for night in nights:
        key = (night["asleep_min"], night["in_bed_min"])
        if night["date"] not in best or key > (best[night["date"]]["asleep_min"], best[night["date"]]["in_bed_min"]):
            best[night["date"]] = night
    return [best[date] for date in sorted(best)]


def night_figures(cluster, timeline):
    asleep_samples = [s for s in cluster if s["stage"] in ASLEEP]
    asleep = []
    source = None
    if asleep_samples:
        source = rank_sources(asleep_samples)[0]
        asleep = merge([(s["start"], s["end"]) for s in asleep_samples if s["source"] == source])
    # In bed: the union of in-bed samples and time asleep; a night with no in-bed sample is in
    # bed from its first asleep moment to its last, its gaps awake in bed.
    in_bed = [(s["start"], s["end"]) for s in cluster if s["stage"] == IN_BED]
    if in_bed:
        bed = merge(in_bed + asleep)
    else:
        bed = [(asleep[0][0], asleep[-1][1])] if asleep else []
    if not bed:
        return None
    wake = bed[-1][1]
    stamped = next(s["stamped"] for s in cluster if s["end"] == max(x["end"] for x in cluster))
    return {
        "date": timeline.local(wake, stamped).date().isoformat(),
        "bed_start_utc": utc_text(bed[0][0]),
        "wake_end_utc": utc_text(wake),
        "in_bed_min": length(bed) / 60,
        "asleep_min": length(asleep) / 60,
        "stage_source": source,
    }


# ---------------------------------------------------------------------------------------------
# Workouts and route distance


def activity_name(workout):
    raw = workout["attrs"].get("workoutActivityType", "")
    return raw[len("HKWorkoutActivityType") :] if raw.startswith("HKWorkoutActivityType") else raw


def snake_case(name):
    out = ""
    for index, char in enumerate(name):
        if char.isupper() and index > 0 and (not name[index - 1].isupper() or (index + 1 < len(name) and name[index + 1].islower())):
            out += "_"
        out += char.lower()
    return out


def workout_ids(workouts):
    """`<start UTC>-<activity>`, `-2`, `-3` … for workouts of one kind starting in one second."""
    ids, seen = [], {}
    for workout in sorted(workouts, key=lambda w: w["start"]):
        base = datetime.fromtimestamp(math.floor(workout["start"]), timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        base += "-" + snake_case(activity_name(workout))
        seen[base] = seen.get(base, 0) + 1
        ids.append((base if seen[base] == 1 else f"{base}-{seen[base]}", workout))
    return ids


def haversine(a, b):
    lat1, lat2 = math.radians(a["lat"]), math.radians(b["lat"])
    dlat, dlon = lat2 - lat1, math.radians(b["lon"] - a["lon"])
    h = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlon / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


def ceiling(activity):
    if activity in ON_FOOT:
        return CEILING_ON_FOOT
    if activity == "Cycling":
        return CEILING_CYCLING
    if activity == "Swimming":
        return CEILING_SWIMMING
    return CEILING_OTHER


def in_clock_order(points):
    """The indices of the longest run of points whose times strictly increase (docs gap 7):
    a point hours early or late, or a second fix at the same time, is left out."""
    tails, tail_index, previous = [], [], [-1] * len(points)
    # A fix at the time of the one before it stands still: the first of them is kept.
    moving = [i for i, p in enumerate(points) if i == 0 or p["time"] != points[i - 1]["time"]]
    for index in moving:
        point = points[index]
        position = bisect.bisect_left(tails, point["time"])
        if position > 0:
            previous[index] = tail_index[position - 1]
        if position == len(tails):
            tails.append(point["time"])
            tail_index.append(index)
        else:
            tails[position] = point["time"]
            tail_index[position] = index
    kept, index = [], tail_index[-1] if tail_index else -1
    while index >= 0:
        kept.append(index)
        index = previous[index]
    return set(kept)


def active_windows(workout):
    """The workout's active intervals: its span, or its parts' windows, minus pauses."""
    parts = []
    for part in workout["parts"]:
        start, end = parse_export_date(part.get("startDate")), parse_export_date(part.get("endDate"))
        if start and end:
            parts.append((start[0], end[0]))
    windows = merge(parts) if parts else [(workout["start"], workout["end"])]
    pauses, paused_at = [], None
    for event in sorted(workout["events"], key=lambda e: (parse_export_date(e.get("date")) or (0,))[0]):
        when = parse_export_date(event.get("date"))
        kind = event.get("type", "")
        if when is None:
            continue
        if kind in ("HKWorkoutEventTypePause", "HKWorkoutEventTypeMotionPaused") and paused_at is None:
            paused_at = when[0]
        elif kind in ("HKWorkoutEventTypeResume", "HKWorkoutEventTypeMotionResumed") and paused_at is not None:
            pauses.append((paused_at, when[0]))
            paused_at = None
    if paused_at is not None:
        pauses.append((paused_at, workout["end"]))
    active = []
    for start, end in windows:
        active.extend(subtract(start, end, merge(pauses)))
    return windows, active


def route_distance(workout, points):
    """Metres between consecutive active points of one active interval, with only glitches
    between them (Active points: pauses, parts, glitches, drives)."""
    activity = activity_name(workout)
    speed_ceiling = ceiling(activity)
    windows, active = active_windows(workout)
    ordered = in_clock_order(points)
    state = []
    for index, point in enumerate(points):
        t = point["time"]
        if index not in ordered:
            state.append("glitch")
        elif not any(a <= t <= b for a, b in windows):
            state.append("outside")
        elif not any(a <= t <= b for a, b in active):
            state.append("paused")
        else:
            state.append("candidate")
    interval = [next((k for k, (a, b) in enumerate(active) if a <= p["time"] <= b), None) for p in points]
    breaks = set()  # indices of active points that start afresh (after a jump)
    trusted = []  # indices of trusted points so far

    def reachable(a, b):
        pa, pb = points[a], points[b]
        allowed = speed_ceiling * (pb["time"] - pa["time"]) + REACH_MARGIN_M + pa["hacc"] + pb["hacc"]
        return haversine(pa, pb) <= allowed

    candidates = [i for i, s in enumerate(state) if s == "candidate"]
    position = 0
    while position < len(candidates):
        index = candidates[position]
        if points[index]["hacc"] > MAX_ACCURACY_M:
            state[index] = "glitch"
            position += 1
            continue
        if not trusted or reachable(trusted[-1], index):
            state[index] = "active"
            trusted.append(index)
            position += 1
            continue
        # Unreachable: does the signal come back here (five fixes in a row, each reachable
        # from the one before, none from the last trusted point)?
        run = [index]
        for later in candidates[position + 1 :]:
            if len(run) == REACQUIRE_FIXES:
                break
            if points[later]["hacc"] > MAX_ACCURACY_M:
                continue
            if reachable(run[-1], later) and not reachable(trusted[-1], later):
                run.append(later)
            else:
                break
        if len(run) == REACQUIRE_FIXES:
            if len(trusted) < REACQUIRE_FIXES:
                for earlier in trusted:
                    state[earlier] = "glitch"  # a bad first fix
                trusted = []
            state[index] = "active"
            breaks.add(index)
            trusted.append(index)
        else:
            state[index] = "glitch"
        position += 1
    if activity in ON_FOOT:
        mark_vehicle(points, state)
    distance, previous, broken = 0.0, None, False
    for index, point in enumerate(points):
        if state[index] == "glitch":
            continue
        if state[index] != "active":
            broken = True
            continue
        if previous is not None and not broken and index not in breaks and interval[previous] == interval[index]:
            distance += haversine(points[previous], point)
        previous, broken = index, False
    return distance


def mark_vehicle(points, state):
    """A minute or more whose trusted distance and the straight line across it both imply more
    than 8.5 m/s holds a drive, from the first step faster than 8.5 m/s to the last (docs gap 8)."""
    trusted = [i for i, s in enumerate(state) if s == "active"]
    along = [0.0]  # trusted distance from the first trusted point
    for previous, index in zip(trusted, trusted[1:]):
        along.append(along[-1] + haversine(points[previous], points[index]))
    times = [points[i]["time"] for i in trusted]

    def fast(j):  # the step from trusted[j - 1] to trusted[j]
        return (along[j] - along[j - 1]) / max(1, times[j] - times[j - 1]) > VEHICLE_SPEED

    driven = set()
    for k, first in enumerate(trusted):
        # The first trusted point a minute or more later closes the window.
        m = bisect.bisect_left(times, times[k] + VEHICLE_WINDOW_S, k + 1)
        if m == len(trusted):
            break
        elapsed = times[m] - times[k]
        straight = haversine(points[first], points[trusted[m]])
        if (along[m] - along[k]) / elapsed > VEHICLE_SPEED and straight / elapsed > VEHICLE_SPEED:
            steps = [j for j in range(k + 1, m + 1) if fast(j)]
            if steps:
                driven.update(trusted[steps[0] : max(steps[0], steps[-1] - 1) + 1])
    # A drive goes on while its steps stay fast, wherever it turns; a track that ends in the
    # car ends with the car's fix.
    marked = [trusted[j] in driven for j in range(len(trusted))]
    for j in range(1, len(trusted)):
        if marked[j - 1] and not marked[j] and fast(j) and (j + 1 == len(trusted) or fast(j + 1)):
            marked[j] = True
    for j, index in enumerate(trusted):
        if marked[j]:
            state[index] = "vehicle"


def workout_routes(handler, routes):
    """{workout_id: route distance} for each workout with a route: its FileReference files, or
    (older exports) the route files whose first point lies in its span; inline Locations too."""
    result = {}
    identified = workout_ids(handler.workouts)
    referenced = {path for _, w in identified for path in w["files"]}
    unclaimed = {p: pts for p, pts in routes.items() if p not in referenced and pts}
    for workout_id, workout in identified:
        files = [routes[p] for p in workout["files"] if p in routes]
        if not workout["files"]:
            files = [pts for pts in unclaimed.values() if workout["start"] <= pts[0]["time"] <= workout["end"]]
        if workout["locations"]:
            inline = []
            for location in workout["locations"]:
                when = parse_export_date(location.get("date"))
                lat, lon = number(location.get("latitude")), number(location.get("longitude"))
                if when and lat is not None and lon is not None:
                    inline.append({"time": when[0], "lat": lat, "lon": lon, "hacc": number(location.get("horizontalAccuracy")) or 0.0})
            files.append(inline)
        files = [f for f in files if f]
        if not files:
            continue
        # Parts' files one after the other in time order; a repeated boundary point once.
        points = []
        for file_points in sorted(files, key=lambda f: f[0]["time"]):
            if points and (points[-1]["time"], points[-1]["lat"], points[-1]["lon"]) == (
                file_points[0]["time"],
                file_points[0]["lat"],
                file_points[0]["lon"],
            ):
                file_points = file_points[1:]
            points.extend(file_points)
        result[workout_id] = route_distance(workout, points)
    return result


def workout_sightings(handler, routes):
    """Workouts with HKTimeZone are sightings unless their route starts more than 52.5° of
    longitude from their zone's offset."""
    sightings = []
    for workout in handler.workouts:
        zone = known_zone(workout["zone"]) if workout["zone"] else None
        if zone is None:
            continue
        files = [routes[p] for p in workout["files"] if routes.get(p)]
        if files:
            first = min((f[0] for f in files), key=lambda p: p["time"])
            offset_h = datetime.fromtimestamp(workout["start"], timezone.utc).astimezone(zone).utcoffset().total_seconds() / 3600
            if abs(first["lon"] / 15 - offset_h) > 3.5:
                continue
        sightings.append((workout["start"], workout["end"], workout["zone"]))
    return sightings


# ---------------------------------------------------------------------------------------------


def reference(path):
    handler, routes = read_archive(path)
    timeline = Timeline(handler.sightings + workout_sightings(handler, routes))
    return {
        "daily": daily_figures(handler, timeline),
        "nights": sleep_nights(handler, timeline),
        "route_distance_m": workout_routes(handler, routes),
        "faults": handler.faults,
    }


if __name__ == "__main__":
    if sys.argv[1:] == ["--findings"]:
        print("\n".join(FINDINGS))
    elif len(sys.argv) == 2:
        print(json.dumps(reference(sys.argv[1]), indent=1, sort_keys=True))
    else:
        raise SystemExit(__doc__)
