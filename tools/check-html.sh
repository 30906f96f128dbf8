#!/usr/bin/env bash
# Renders a rangetap HTML report in headless Chromium, saves a screenshot, and fails if the
# screenshot is missing or nearly blank (so a report that does not render is caught).
#
# Usage: tools/check-html.sh CAPTURE.rtap|REPORT.html [OUT.png]
#   CAPTURE.rtap   a capture directory: the report is made with `rangetap export --html` first
#   REPORT.html    an existing report
#   OUT.png        where the screenshot goes (default: next to the HTML, .png instead of .html)
# Environment: WINDOW_SIZE (default 1400,1000), RANGETAP (default .build/debug/rangetap).
# Installs Debian's chromium with apt-get when it is missing.
set -euo pipefail

die() { echo "check-html: $*" >&2; exit 1; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: tools/check-html.sh CAPTURE.rtap|REPORT.html [OUT.png]"

root=$(cd "$(dirname "$0")/.." && pwd)
input=$(realpath -- "$1") || die "no such file: $1"
work=$(mktemp -d "${TMPDIR:-/tmp}/check-html.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -d "$input" ]; then
    rangetap=${RANGETAP:-$root/.build/debug/rangetap}
    if [ ! -x "$rangetap" ]; then
        (cd "$root" && swift build --product rangetap >&2) || die "cannot build rangetap"
    fi
    html="$work/report.html"
    # From the capture's folder, so the report is titled NAME.rtap rather than a full path.
    (cd "$(dirname "$input")" && "$rangetap" export "$(basename "$input")" --html "$html") || die "rangetap export failed for $input"
    default_png="${input%/}.png"
elif [ -f "$input" ]; then
    html="$input"
    default_png="${input%.html}.png"
else
    die "not a capture directory or an HTML file: $1"
fi
png=${2:-$default_png}
case "$png" in /*) ;; *) png="$PWD/$png" ;; esac

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "check-html: installing chromium (apt-get)" >&2
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2 \
        || die "cannot install chromium; install Debian's chromium package"
    chromium=$(command -v chromium) || die "chromium is still not on PATH"
fi

rm -f "$png"
# A throw-away profile; no network is needed (the report is self-contained).
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$work/profile" --window-size="${WINDOW_SIZE:-1400,1000}" \
    --screenshot="$png" "file://$html" >"$work/chromium.log" 2>&1 || {
    cat "$work/chromium.log" >&2
    die "chromium failed"
}
[ -s "$png" ] || { cat "$work/chromium.log" >&2; die "no screenshot at $png"; }

# Decode the PNG (standard library only) and count pixels that are not page background.
python3 - "$png" <<'PY'
import struct, sys, zlib
path = sys.argv[1]
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"check-html: {path} is not a PNG")
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        if depth != 8 or colour not in (2, 6) or interlace:
            sys.exit(f"check-html: unexpected PNG format (depth {depth}, colour {colour}, interlace {interlace})")
        bpp = 3 if colour == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw = zlib.decompress(idat)
stride = width * bpp
prev = bytearray(stride)
inked = 0
coloured = 0
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        r, g, bl = line[x], line[x + 1], line[x + 2]
        if min(r, g, bl) < 200:
            inked += 1
        if max(r, g, bl) - min(r, g, bl) > 60:
            coloured += 1
    prev = line
total = width * height
print(f"check-html: {path}: {width}x{height}, {100 * inked / total:.1f}% drawn, {100 * coloured / total:.2f}% in colour")
if inked < total * 0.01:
    sys.exit("check-html: the screenshot is nearly empty: the report did not render")
if coloured < total * 0.001:
    sys.exit("check-html: no coloured pixels: the waterfall bars did not render")
PY
