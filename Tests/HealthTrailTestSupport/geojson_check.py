#!/usr/bin/env python3
"""Checks a routes.geojson file against RFC 7946, independently of the Swift writer.

Usage: geojson_check.py FILE [--times]

Parses with the standard library's json module (strictly: no NaN/Infinity, no duplicate keys,
UTF-8 without a byte-order mark) and checks the RFC's rules itself. Without --times every
position must be [lon, lat]; with --times [lon, lat, elevation, unix seconds] (kepler.gl's trip
format), with times never decreasing along a line.

If the PyPI package `geojson` is importable it must also find the file valid. That package
accepts only 2- or 3-element positions, so with --times it checks a copy whose positions are
cut to three elements (the RFC says positions SHOULD NOT have more than three; the fourth is a
deliberate extension for kepler.gl).

Exits 0 when valid, 1 with one message per problem (at most 20) otherwise.
"""
import copy
import json
import sys
from decimal import Decimal

MAX_DECIMALS = 6


class Invalid(Exception):
    pass


def reject_constant(name):
    raise Invalid(f"non-standard JSON constant {name}")


def no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise Invalid(f"duplicate member {key!r}")
        obj[key] = value
    return obj


def is_number(v):
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def decimals(v):
    if isinstance(v, int):
        return 0
    exponent = v.as_tuple().exponent
    return -exponent if exponent < 0 else 0


class Checker:
    def __init__(self, times):
        self.times = times
        self.problems = []

    def fail(self, where, message):
        self.problems.append(f"{where}: {message}")

    def position(self, where, p):
        if not isinstance(p, list):
            return self.fail(where, "a position must be an array")
        want = 4 if self.times else 2
        if len(p) != want:
            return self.fail(where, f"a position has {len(p)} elements, expected {want}")
        if not all(is_number(v) for v in p):
            return self.fail(where, "a position holds a non-number")
        lon, lat = p[0], p[1]
        if not -180 <= lon <= 180:
            self.fail(where, f"longitude {lon} out of range")
        if not -90 <= lat <= 90:
            self.fail(where, f"latitude {lat} out of range")
        for v in (lon, lat):
            if decimals(v) > MAX_DECIMALS:
                self.fail(where, f"coordinate {v} has more than {MAX_DECIMALS} decimals")
        if self.times and not isinstance(p[3], int):
            self.fail(where, f"time {p[3]} is not whole unix seconds")

    def line(self, where, coords):
        if not isinstance(coords, list) or len(coords) < 2:
            return self.fail(where, "a LineString needs two or more positions")
        for i, p in enumerate(coords):
            self.position(f"{where} position {i}", p)
        if self.times and not self.problems:
            ts = [p[3] for p in coords]
            if any(b < a for a, b in zip(ts, ts[1:])):
                self.fail(where, "times decrease along the line")

    def geometry(self, where, g, kind):
        if not isinstance(g, dict):
            return self.fail(where, "geometry must be an object")
        if "crs" in g:
            self.fail(where, "crs member (removed by RFC 7946)")
        gtype = g.get("type")
        coords = g.get("coordinates")
        if gtype == "Point":
            self.position(where, coords)
        elif gtype == "LineString":
            self.line(where, coords)
        elif gtype == "MultiLineString":
            if not isinstance(coords, list) or len(coords) < 2:
                return self.fail(where, "a MultiLineString here holds two or more lines")
            for k, line in enumerate(coords):
                self.line(f"{where} line {k}", line)
            if self.times:
                self.fail(where, "with times, a route is one LineString (kepler.gl's trip layer)")
        else:
            return self.fail(where, f"unexpected geometry type {gtype!r}")
        expected = {"start": ("Point",), "end": ("Point",), "segment": ("LineString",),
                    "route": ("LineString", "MultiLineString", "Point")}.get(kind)
        if expected is None:
            self.fail(where, f"unknown kind {kind!r}")
        elif gtype not in expected:
            self.fail(where, f"kind {kind!r} has geometry {gtype}, expected {' or '.join(expected)}")

    def feature(self, where, f):
        if not isinstance(f, dict) or f.get("type") != "Feature":
            return self.fail(where, "not a Feature object")
        if "geometry" not in f or "properties" not in f:
            return self.fail(where, "a Feature needs geometry and properties members")
        if "crs" in f:
            self.fail(where, "crs member (removed by RFC 7946)")
        props = f["properties"]
        if not isinstance(props, dict):
            return self.fail(where, "properties must be an object")
        if not isinstance(props.get("workout_id"), str):
            self.fail(where, "workout_id missing")
        self.geometry(where, f["geometry"], props.get("kind"))

    def collection(self, doc):
        if not isinstance(doc, dict) or doc.get("type") != "FeatureCollection":
            return self.fail("top level", "not a FeatureCollection")
        if "crs" in doc:
            self.fail("top level", "crs member (removed by RFC 7946)")
        features = doc.get("features")
        if not isinstance(features, list):
            return self.fail("top level", "features must be an array")
        for i, f in enumerate(features):
            self.feature(f"feature {i}", f)
            if len(self.problems) >= 20:
                break


def library_check(text, times):
    try:
        import geojson
    except ImportError:
        print("geojson package: not installed, library check skipped")
        return []
    obj = geojson.loads(text)
    if times:
        # The package allows 2 or 3 values per position: check the rest with times cut off.
        obj = geojson.loads(geojson.dumps(cut_times(copy.deepcopy(json.loads(text)))))
    valid = obj.is_valid
    print(f"geojson package {geojson.__version__}: is_valid = {valid}"
          + (" (positions cut to 3 elements)" if times else ""))
    return [] if valid else [f"geojson package: {obj.errors()}"]


def cut_times(doc):
    for f in doc["features"]:
        g = f["geometry"]
        if g["type"] == "Point":
            g["coordinates"] = g["coordinates"][:3]
        else:
            g["coordinates"] = [p[:3] for p in g["coordinates"]]
    return doc


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    times = "--times" in argv
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    raw = open(args[0], "rb").read()
    if raw.startswith(b"\xef\xbb\xbf"):
        print("byte-order mark at the start (RFC 7946 §2 / RFC 8259 §8.1)", file=sys.stderr)
        return 1
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text, parse_float=Decimal, parse_constant=reject_constant,
                         object_pairs_hook=no_duplicates)
    except (UnicodeDecodeError, ValueError, Invalid) as e:
        print(f"not valid JSON: {e}", file=sys.stderr)
        return 1
    checker = Checker(times)
    checker.collection(doc)
    problems = checker.problems
    if not problems:
        problems = library_check(text, times)
    if problems:
        for p in problems[:20]:
            print(p, file=sys.stderr)
        return 1
    print(f"ok: {len(doc['features'])} features")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
