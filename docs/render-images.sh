#!/usr/bin/env bash
# Renders the SVG maps of the bundled sample to PNG with headless Chromium, for the README.
# Usage: docs/render-images.sh [OUTPUT_FOLDER_OF_A_RUN]   (default: out/sample, from `make run`)
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:-out/sample}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
render() { # svg png width height
  local svg=$1 png=$2 w=$3 h=$4
  printf '<html><body style="margin:0;background:#fff"><img src="file://%s" width="%s" height="%s"></body></html>' \
    "$(realpath "$svg")" "$w" "$h" > "$tmp/page.html"
  # The headless window lays the page out shorter than the screenshot: render taller, crop after.
  timeout -k 5 60 chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --force-device-scale-factor=1 --force-color-profile=srgb --no-first-run --user-data-dir="$tmp/profile" \
    --window-size="$w,$((h + 256))" --screenshot="$tmp/shot.png" "file://$tmp/page.html" </dev/null >/dev/null 2>&1
  python3 - "$tmp/shot.png" "$png" "$w" "$h" <<'PY'
import sys, zlib, struct
src, dst, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(src, 'rb').read(); pos = 8; idat = b''; width = height = ct = 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos+8]); body = data[pos+8:pos+8+n]; pos += 12 + n
    if kind == b'IHDR': width, height, _, ct = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT': idat += body
bpp = 4 if ct == 6 else 3; raw = zlib.decompress(idat); stride = width * bpp; rows = []; prev = bytearray(stride); i = 0
for _ in range(height):
    f = raw[i]; line = bytearray(raw[i+1:i+1+stride]); i += 1 + stride
    for x in range(stride):
        a = line[x-bpp] if x >= bpp else 0; b = prev[x]; c = prev[x-bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p-a), abs(p-b), abs(p-c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
out = b''.join(b'\0' + rows[y][:w*bpp] for y in range(min(h, height)))
chunk = lambda k, d: struct.pack('>I', len(d)) + k + d + struct.pack('>I', zlib.crc32(k + d) & 0xffffffff)
open(dst, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, min(h, height), 8, ct, 0, 0, 0))
                      + chunk(b'IDAT', zlib.compress(out, 9)) + chunk(b'IEND', b''))
PY
  echo "$png"
}
size() { python3 -c "import re,sys; t=open(sys.argv[1]).read(); m=re.search(r'<svg[^>]*width=\"([0-9.]+)\"[^>]*height=\"([0-9.]+)\"',t); print(int(float(m.group(1))), int(float(m.group(2))))" "$1"; }
workout=$(ls "$run"/svg/workouts/*.svg | head -1)
for pair in "$workout:docs/images/workout.png" "$run/svg/routes.svg:docs/images/routes.png" \
            "$run/svg/density.svg:docs/images/density.png" "$run/svg/calendar-steps.svg:docs/images/calendar-steps.png"; do
  svg=${pair%%:*}; png=${pair##*:}
  read -r w h < <(size "$svg")
  render "$svg" "$png" "$w" "$h"
done
