#!/usr/bin/env bash
# Installs what is missing, builds rangetap and its tests, and runs them in two tiers:
#   0. the format check (tools/check-format.sh);
#   1. the fast tier: pure logic, parsers, state machines and EmbeddedChannel pipelines (no
#      subprocess, no listening socket), in one process, tests in parallel;
#   2. the integration tier: real peers (curl, ffmpeg, nginx, Chromium, Python origins) on
#      127.0.0.1, each suite in its own process, several suites at a time (tools/run-suites.py),
#      then the suites that measure their own process, one at a time;
# then renders the HTML report in a real headless Chromium. docs/testing.md has the details.
#
# Usage: tools/test.sh [--fast]
#   --fast   the format check and the fast tier only (after a build)
# Environment: TEST_JOBS (integration suites run at once, default 4).
set -euo pipefail
cd "$(dirname "$0")/.."
fast_only=false
case ${1:-} in
  "") ;;
  --fast) fast_only=true ;;
  *) echo "test.sh: usage: tools/test.sh [--fast]" >&2; exit 2 ;;
esac
$fast_only || tools/install-deps.sh --for test
# Every temporary file of the run (test origins, captures of up to a GiB, peers' logs) goes under
# one directory that is removed at the end, so repeated runs do not fill the disk.
TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/rangetap-test-run.XXXXXX")"
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

started=$(date +%s)
mkdir -p .build
# The sources as swift-format leaves them, no line over 120 columns (.swift-format): checked
# while the build resolves and plans (single-threaded for its first seconds), its verdict taken
# after the build.
tools/check-format.sh > .build/check-format.log 2>&1 &
format_pid=$!
if ! swift build --build-tests > .build/build.log 2>&1; then
  grep -E -A4 'error:' .build/build.log | head -n 80 || tail -n 40 .build/build.log
  echo "test.sh: the build failed (whole log: .build/build.log)" >&2
  wait "$format_pid" || cat .build/check-format.log >&2
  exit 1
fi
tail -n 1 .build/build.log
if ! wait "$format_pid"; then
  cat .build/check-format.log >&2
  echo "test.sh: the format check failed (tools/check-format.sh)" >&2
  exit 1
fi
# swift-argument-parser's man page generator, which the distribution tests run (tools/dist-lib.sh):
# built here, where its ArgumentParser is already built, rather than alone during the tests.
swift build --product generate-manual >> .build/build.log 2>&1 || echo "test.sh: generate-manual did not build; the distribution tests build it themselves" >&2
built=$(date +%s)

# The fast tier: every test target except the integration one, tests in parallel in one process.
# The whole log is kept; shown here: each failure with what it recorded, and the count.
set +e
swift test --skip-build --skip 'RangeTapIntegrationTests\.' > .build/test-fast.log 2>&1
status=$?
set -e
grep -E -A12 '^✘ Test .* recorded an issue' .build/test-fast.log | grep -vE '^(◇|✔) ' || true
grep -E '^(✔|✘) Test run with' .build/test-fast.log || tail -n 20 .build/test-fast.log
[ "$status" -eq 0 ] || exit "$status"
fast_done=$(date +%s)
echo "test.sh: fast tier passed in $((fast_done - built)) s (build $((built - started)) s)"
$fast_only && exit 0

# The integration tier: one process per suite, TEST_JOBS at a time, longest first.
# The suites that measure their own process (descriptors by the thousand, memory, page faults)
# or count flow events (HTTP2ResumeTests: pauses after a resume)
# run after the others, one at a time, so the load of the others does not move their figures.
alone='(ConnectionBurst|TLSConnectionBurst|IdleTLSConnectionMemory|MallocTuning|HTTP2Resume)Tests'
tools/run-suites.py --filter '^RangeTapIntegrationTests\.' --alone "$alone" --jobs "${TEST_JOBS:-4}"
# The HTML report, rendered in a real headless Chromium.
tools/check-html.sh captures/avplayer-nginx.rtap "$(mktemp -d)/waterfall.png"
echo "test.sh: build $((built - started)) s, fast tier $((fast_done - built)) s," \
  "integration tier $(($(date +%s) - fast_done)) s"
