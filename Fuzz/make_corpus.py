#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target: make_corpus.py OUT SYNTH_ZIP [REAL_FIXTURES].

OUT/<target>/ receives small, valid inputs cut from an export made by the project's generator
(SYNTH_ZIP, from `healthtrail synth`) and, when the folder exists, from the real exports in
REAL_FIXTURES (../shared/fixtures/real). Nothing here is committed: `make fuzz` regenerates it
into .fuzz/corpus/ and libFuzzer adds what it finds there.

Seeds stay small (a few KiB): libFuzzer mutates small inputs far faster, and one element of
each kind covers the decoders as well as a whole file would. The export-xml, gpx and ecg targets
read their first byte as the chunk size they are fed in, so those seeds start with one.
"""
import io
import os
import re
import sys
import zipfile

out, synth_zip = sys.argv[1], sys.argv[2]
fixtures = sys.argv[3] if len(sys.argv) > 3 and os.path.isdir(sys.argv[3]) else None
written = {}


def seed(target, name, data):
    folder = os.path.join(out, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)
    written[target] = written.get(target, 0) + 1


def main_xml(archive):
    """The export.xml of a zip, found by content as HealthTrail does."""
    for info in sorted(archive.infolist(), key=lambda i: -i.file_size):
        if info.filename.lower().endswith(".xml"):
            data = archive.read(info)
            if b"<!DOCTYPE HealthData" in data[:65536] or b"<HealthData" in data[:65536]:
                return data
    return None


def export_seeds(xml, label, limit=6):
    """Prolog (DTD included) + one element of each kind + the closing tag."""
    root = re.search(rb"<HealthData[ >]", xml)
    if not root:
        return []
    head_end = xml.find(b">", root.end() - 1) + 1
    # Keep ExportDate and Me with the prolog when they are there.
    me = re.search(rb"<Me [^>]*/>\s*", xml[head_end:head_end + 4096])
    prolog = xml[:head_end + (me.end() if me else 0)]
    if len(prolog) > 12000:   # a long real DTD: keep its start and its end
        prolog = prolog[:12000]
    seeds = []
    kinds = [rb"<Record type=\"([A-Za-z]+)\"[^>]*/>", rb"<Record type=\"([A-Za-z]+)\"[^>]*[^/]>.*?</Record>",
             rb"<Workout [^>]*>.*?</Workout>", rb"<Correlation [^>]*>.*?</Correlation>", rb"<ActivitySummary [^>]*/>"]
    seen = set()
    for pattern in kinds:
        for m in re.finditer(pattern, xml, re.S):
            key = (pattern, m.group(1) if m.groups() else None)
            if key in seen or len(m.group(0)) > 6000:
                continue
            seen.add(key)
            seeds.append(prolog + b"\n " + m.group(0) + b"\n</HealthData>\n")
            if len([k for k in seen if k[0] == pattern]) >= limit:
                break
    return [(f"{label}-{i}", s) for i, s in enumerate(seeds)]


def gpx_seed(gpx, points=3):
    """Header + the first few track points + closing tags."""
    first = gpx.find(b"<trkpt")
    if first < 0:
        return gpx[:4096]
    ends = [m.end() for m in re.finditer(rb"</trkpt>", gpx[:200000])][:points]
    if not ends:
        return gpx[:4096]
    return gpx[:ends[-1]] + b"\n</trkseg></trk></gpx>\n"


def zip_bytes(entries, compression=zipfile.ZIP_DEFLATED, zip64=False, streamed=False):
    """A zip of (name, bytes); `streamed` writes to an unseekable stream (data descriptors)."""
    buffer = io.BytesIO()

    class Unseekable(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            return buffer.write(b)

    target = Unseekable() if streamed else buffer
    with zipfile.ZipFile(target, "w", compression=compression) as z:
        for name, data in entries:
            with z.open(zipfile.ZipInfo(name, (2024, 1, 1, 12, 0, 0)), "w", force_zip64=zip64) as f:
                f.write(data)
    return buffer.getvalue()


with zipfile.ZipFile(synth_zip) as synth:
    xml = main_xml(synth)
    gpx = [synth.read(n) for n in synth.namelist() if n.endswith(".gpx")]
    ecgs = [("synth-" + os.path.basename(n), synth.read(n)) for n in synth.namelist() if "electrocardiograms/" in n]

exports = export_seeds(xml, "synth")
gpxs = [("synth-route", gpx_seed(g)) for g in gpx[:1]]

if fixtures:
    for zip_name in ["k0rventen/test-export.zip", "k0rventen/test-export3.zip", "k0rventen/test-export4.zip",
                     "ericwolter/Export.zip"]:
        path = os.path.join(fixtures, zip_name)
        if os.path.exists(path):
            with zipfile.ZipFile(path) as z:
                real = main_xml(z)
            label = "real-" + zip_name.replace("/", "-").replace(".zip", "")
            exports += export_seeds(real, label, limit=2)[:8]
    gpx_dir = os.path.join(fixtures, "applehealth-gpx")
    if os.path.isdir(gpx_dir):
        for name in sorted(os.listdir(gpx_dir))[:4]:
            with open(os.path.join(gpx_dir, name), "rb") as f:
                gpxs.append(("real-" + name, gpx_seed(f.read())))

# export-xml and gpx: first byte = chunk size - 1 (255: whole 256-byte chunks; 6: 7-byte chunks).
for name, data in exports:
    seed("export-xml", name, b"\xff" + data)
    seed("device-elision", name, b"\xff" + data)
for name, data in gpxs:
    seed("gpx", name, b"\xff" + data)
    seed("gpx", name + "-small-chunks", b"\x06" + data)
if exports:
    seed("export-xml", "small-chunks", b"\x06" + exports[0][1])
    seed("device-elision", "small-chunks", b"\x06" + exports[0][1])

# zip: small archives shaped like exports, in each layout the reader handles.
small_export = min((d for _, d in exports), key=len)
small_gpx = min((d for _, d in gpxs), key=len) if gpxs else b"<gpx/>"
entries = [("apple_health_export/export.xml", small_export),
           ("apple_health_export/workout-routes/route_2024-01-01_7.00am.gpx", small_gpx)]
seed("zip", "deflated.zip", zip_bytes(entries))
seed("zip", "stored.zip", zip_bytes(entries, compression=zipfile.ZIP_STORED))
seed("zip", "zip64.zip", zip_bytes(entries, zip64=True))
seed("zip", "data-descriptors.zip", zip_bytes(entries, streamed=True))
seed("zip", "macos-junk.zip", zip_bytes(entries + [("__MACOSX/apple_health_export/._export.xml", b"\0\5\26\7"),
                                                   ("apple_health_export/.DS_Store", b"\0" * 64)]))
seed("zip", "empty.zip", zip_bytes([]))

# timestamp: both formats, the edges of the calendar and of offsets, and dates from the seeds.
stamps = [b"2024-01-02 07:31:22 -0800", b"2024-01-02T15:31:22Z", b"2024-01-02T15:31:22.250+01:00",
          b"2024-01-02T15:31:22,5+0100", b"2024-02-29 00:00:00 +0000", b"2023-12-31 23:59:60 +1400",
          b"0001-01-01 00:00:00 +0100", b"9998-12-31 23:59:59 -1800", b"2024-06-30 12:00:00"]
stamps += sorted(set(re.findall(rb"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?: [+-]\d{4}|Z|[+-]\d\d:\d\d)?",
                                b"".join(d for _, d in exports + gpxs))))[:40]
for i, s in enumerate(stamps):
    seed("timestamp", f"date-{i}", s)

# ecg: each file's header and first samples (every quirk is in the header: quotes, blank lines,
# µV), fed whole and in 7-byte chunks.
if fixtures:
    ecg_dir = os.path.join(fixtures, "hacktj23/apple_health_export/electrocardiograms")
    if os.path.isdir(ecg_dir):
        for name in sorted(os.listdir(ecg_dir)):
            with open(os.path.join(ecg_dir, name), "rb") as f:
                ecgs.append(("real-" + name, f.read()))
for name, data in ecgs:
    lines = data.split(b"\n")
    first = next((i for i, l in enumerate(lines) if re.match(rb"-?\d", l)), len(lines))
    cut = b"\n".join(lines[:first + 20]) + b"\n"
    seed("ecg", name, b"\xff" + cut)
    seed("ecg", name + "-small-chunks", b"\x06" + cut)

print("seed corpus:", ", ".join(f"{k} {v}" for k, v in sorted(written.items())))
