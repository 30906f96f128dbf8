#!/usr/bin/env bash
# Installs what is missing, builds rangetap, and runs every test against real peers
# (curl, ffmpeg/ffprobe, nginx, Python's http.server, the quirk origin), all on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh --for test
# Every temporary file of the run (test origins, captures of up to a GiB, peers' logs) goes under
# one directory that is removed at the end, so repeated runs do not fill the disk.
TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/rangetap-test-run.XXXXXX")"
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
swift build --build-tests 2>&1 | tail -n 3
# The integration suites start servers and measure descriptors of this process: run serially.
swift test --skip-build --no-parallel 2>&1 | tee .build/test.log | grep -vE '^(◇|↳) '
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || exit "$status"
# The HTML report, rendered in a real headless Chromium.
tools/check-html.sh captures/avplayer-nginx.rtap "$(mktemp -d)/waterfall.png"
