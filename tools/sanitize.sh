#!/usr/bin/env bash
# sanitize.sh — runs test suites under ThreadSanitizer and then AddressSanitizer (issue 10).
#
# Each sanitizer gets its own scratch path (.build-tsan, .build-asan; gitignored by `.build-*/`),
# so the plain debug build in .build is never rebuilt. Per sanitizer the tests are built first
# (`swift build --build-tests --sanitize=…`) and then run with `--skip-build`, so the report
# shows build and test wall times apart. The full output of every step is kept in a log
# directory; the report gives, per sanitizer: build time, test time, the pass/fail summary line
# of the test run, and how many sanitizer reports appeared (their first stacks are printed).
#
# Known noise (Swift 6.3.1, Linux): `Synchronization.Mutex` locks with a raw futex that TSan
# does not see, so every access made inside `withLock` on two threads is reported as a race
# ("Swift access race" / "data race" with both stacks in withLock closures), and so is data
# handed from one thread to another through a Mutex-protected queue. See docs/fuzzing.md.
#
# The proxy suites need nginx and python3 (the test-support origins); the script does not
# check for them, the tests say what is missing.
#
# Usage:
#   tools/sanitize.sh                       # thread, then address, over RangeTapProxyTests
#   SANITIZERS=address tools/sanitize.sh    # one sanitizer only
#   SANITIZE_FILTER='RangeTapCoreTests' tools/sanitize.sh
# Environment:
#   SANITIZERS ("thread address")          which sanitizers, in order
#   SANITIZE_FILTER ("RangeTapProxyTests")  `swift test --filter` pattern
#   SANITIZE_LOG_DIR (a new temp dir)        where the logs go
#   SANITIZE_NICE (10)                       niceness of builds and tests (the machine is shared)
# Progress goes to stderr; the report goes to stdout. Exit 1 when a build or a test failed or a
# sanitizer reported anything, 0 otherwise.
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
SANITIZERS=${SANITIZERS:-thread address}
FILTER=${SANITIZE_FILTER:-RangeTapProxyTests}
NICE=${SANITIZE_NICE:-10}
LOG_DIR=${SANITIZE_LOG_DIR:-$(mktemp -d -t rangetap-sanitize.XXXXXX)}
mkdir -p "$LOG_DIR"
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

log() { printf '[sanitize %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Keep going after the first report so one run shows every race / error.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1:history_size=4}
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=0:detect_leaks=0:detect_stack_use_after_return=1}

fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

status=0
rows=()
for sanitizer in $SANITIZERS; do
  case $sanitizer in
    thread) scratch=.build-tsan; marker='WARNING: ThreadSanitizer' ;;
    address) scratch=.build-asan; marker='ERROR: AddressSanitizer' ;;
    undefined) scratch=.build-ubsan; marker='runtime error:' ;;
    *) log "unknown sanitizer $sanitizer (thread, address, undefined)"; exit 2 ;;
  esac
  build_log=$LOG_DIR/$sanitizer-build.log
  test_log=$LOG_DIR/$sanitizer-test.log

  log "$sanitizer: building tests in $scratch (log: $build_log)"
  start=$(date +%s)
  (cd "$REPO_DIR" && nice -n "$NICE" swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch") >"$build_log" 2>&1
  build_rc=$?
  build_secs=$(($(date +%s) - start))
  if [[ $build_rc -ne 0 ]]; then
    log "$sanitizer: build failed after $(fmt_time $build_secs); tail of the log:"
    tail -n 30 "$build_log" >&2
    rows+=("$sanitizer|$(fmt_time $build_secs)|-|build failed|-")
    status=1
    continue
  fi

  log "$sanitizer: running --filter '$FILTER' (log: $test_log)"
  start=$(date +%s)
  (cd "$REPO_DIR" && nice -n "$NICE" swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --filter "$FILTER") >"$test_log" 2>&1
  test_rc=$?
  test_secs=$(($(date +%s) - start))

  # Swift Testing ends with "Test run with N tests … passed/failed …"; XCTest with "Executed N
  # tests" (left out when it ran none). The process exits non-zero after any sanitizer report
  # even when every test passed (TSan: exit code 66).
  summary=$(grep -E '(Test run with [0-9]+ tests?.*(passed|failed))|(Executed [1-9][0-9]* tests?, with)' "$test_log" \
    | sed 's/^[^A-Za-z]*//' | tail -n 2 | tr '\n' ' ' | sed 's/[[:space:]]*$//')
  [[ -n $summary ]] || summary="no summary line"
  reports=$(grep -c "$marker" "$test_log")
  [[ $test_rc -eq 0 && $reports -eq 0 ]] || status=1
  rows+=("$sanitizer|$(fmt_time $build_secs)|$(fmt_time $test_secs)|exit $test_rc: $summary|$reports")

  if [[ $reports -gt 0 ]]; then
    log "$sanitizer: $reports report(s); the first, with its stacks:"
    awk -v m="$marker" 'index($0, m) { on = 1 } on { print; if (/^SUMMARY:/) exit }' "$test_log" >&2
  fi
  if [[ $test_rc -ne 0 ]]; then
    log "$sanitizer: test process exited $test_rc; failing tests, if any:"
    grep -E '^(✘|.*error: .*failed)' "$test_log" | head -n 20 >&2
  fi
done

printf '%-10s %-10s %-10s %-8s %s\n' sanitizer build test reports 'exit: test run'
for row in "${rows[@]}"; do
  IFS='|' read -r s b t summary n <<<"$row"
  printf '%-10s %-10s %-10s %-8s %s\n' "$s" "$b" "$t" "$n" "$summary"
done
echo "logs: $LOG_DIR"
exit $status
