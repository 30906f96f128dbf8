#!/usr/bin/env bash
# fuzz.sh — builds the libFuzzer targets of Fuzz/ and runs each for a bounded count and time
# (issue 10). See docs/fuzzing.md for what each target covers.
#
# The fuzz package (Fuzz/Package.swift) depends on the main package by path and builds in
# Fuzz/.build with `-sanitize=fuzzer,address -parse-as-library`; the main package and its
# .build are untouched. Each target starts from its seeds (Fuzz/Seeds/<target>/, never written
# to) plus a working corpus in the run directory, and stops at whichever limit comes first.
# Crash, leak-of-time (-timeout) and out-of-memory inputs go to the run directory as artifacts.
#
# Usage:
#   tools/fuzz.sh [options] [target...]       # default: every target
# Options:
#   --runs N        executions per target (1000000)
#   --time SECONDS  wall-clock limit per target (120)
#   --rss MB        libFuzzer -rss_limit_mb (2048)
#   --timeout S     libFuzzer -timeout, seconds for one input (10)
#   --config C      release or debug (release: several times the exec/s of debug)
#   --no-build      run the binaries already in Fuzz/.build
#   --build-only    build, run nothing
#   --list          print the target names
# Environment:
#   FUZZ_NICE (10)        niceness of the build and the runs (the machine is shared)
#   FUZZ_WORK_DIR         run directory (default: a new temp dir): corpus/, artifacts/, logs/
#   FUZZ_EXTRA_ARGS       more libFuzzer flags, e.g. "-max_len=4096 -seed=1"
# Progress goes to stderr; the table goes to stdout: target, executions, exec/s, seconds,
# corpus size, crashes. Exit 1 when any target crashed (or failed to start), 2 on bad usage.
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
FUZZ_DIR=$REPO_DIR/Fuzz
ALL_TARGETS=(FuzzRangeRequest FuzzContentRange FuzzHeaderLine FuzzForwardedHead FuzzMultipart FuzzCaptureLine)

RUNS=1000000
TIME=120
RSS=2048
TIMEOUT=10
CONFIG=release
BUILD=1
RUN=1
NICE=${FUZZ_NICE:-10}
targets=()

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
is_count() { [[ $1 =~ ^[0-9]+$ && $1 -ge 1 ]]; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) is_count "${2:-}" || usage; RUNS=$2; shift 2 ;;
    --time) is_count "${2:-}" || usage; TIME=$2; shift 2 ;;
    --rss) is_count "${2:-}" || usage; RSS=$2; shift 2 ;;
    --timeout) is_count "${2:-}" || usage; TIMEOUT=$2; shift 2 ;;
    --config) [[ ${2:-} == debug || ${2:-} == release ]] || usage; CONFIG=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --build-only) RUN=0; shift ;;
    --list) printf '%s\n' "${ALL_TARGETS[@]}"; exit 0 ;;
    -h|--help) usage ;;
    -*) echo "unknown option $1" >&2; usage ;;
    *)
      [[ " ${ALL_TARGETS[*]} " == *" $1 "* ]] || { echo "unknown target $1 (see --list)" >&2; exit 2; }
      targets+=("$1"); shift ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL_TARGETS[@]}")

log() { printf '[fuzz %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ $BUILD -eq 1 ]]; then
  log "building the fuzz targets ($CONFIG) in Fuzz/.build"
  start=$(date +%s)
  # Every target at once (they are small and share RangeTapCore), whichever are run.
  (cd "$FUZZ_DIR" && nice -n "$NICE" swift build -c "$CONFIG" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld) >&2 \
    || { log "build failed"; exit 1; }
  log "built in $(($(date +%s) - start)) s"
fi
[[ $RUN -eq 1 ]] || exit 0

BIN_DIR=$FUZZ_DIR/.build/$CONFIG
WORK=${FUZZ_WORK_DIR:-$(mktemp -d -t rangetap-fuzz.XXXXXX)}
mkdir -p "$WORK/corpus" "$WORK/artifacts" "$WORK/logs"
log "run directory: $WORK (at most $RUNS runs or $TIME s per target)"

# Swift keeps some allocations for the process's lifetime; leak reports would be noise.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:malloc_context_size=8:symbolize=1}
# Let libFuzzer report a trap (and save the input) instead of the Swift runtime's backtracer.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

status=0
rows=()
for t in "${targets[@]}"; do
  bin=$BIN_DIR/$t
  if [[ ! -x $bin ]]; then
    log "$t: no binary at $bin (build first)"
    rows+=("$t|-|-|-|-|not built"); status=1; continue
  fi
  corpus=$WORK/corpus/$t
  mkdir -p "$corpus"
  fuzz_log=$WORK/logs/$t.log
  log "$t: running (log: $fuzz_log)"
  start=$(date +%s)
  # shellcheck disable=SC2086  # FUZZ_EXTRA_ARGS is a list of flags
  nice -n "$NICE" "$bin" -runs="$RUNS" -max_total_time="$TIME" -rss_limit_mb="$RSS" \
    -timeout="$TIMEOUT" -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix="$WORK/artifacts/$t-" ${FUZZ_EXTRA_ARGS:-} \
    "$corpus" "$FUZZ_DIR/Seeds/$t" >"$fuzz_log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fuzz_log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$fuzz_log" | tail -n 1)
  if [[ -z $execs ]]; then  # no final stats after a crash: the last status line has the count
    execs=$(grep -oE '^#[0-9]+' "$fuzz_log" | tail -n 1 | tr -d '#')
    [[ -n $execs && $secs -gt 0 ]] && rate=$((execs / secs))
  fi
  size=$(find "$corpus" -type f | wc -l)
  crashes=$(find "$WORK/artifacts" -name "$t-*" -type f | wc -l)
  if [[ $rc -ne 0 || $crashes -gt 0 ]]; then
    status=1
    [[ $crashes -gt 0 ]] || crashes="exit $rc"
    log "$t: FAILED (exit $rc); the report:"
    grep -E -A40 '^(==[0-9]+==ERROR|Fatal error|.*fuzz invariant|==[0-9]+== ERROR: libFuzzer)' "$fuzz_log" | head -n 60 >&2
    for a in "$WORK/artifacts/$t"-*; do
      [[ -f $a ]] && log "$t: artifact $a: $(head -c 256 "$a" | od -An -tx1 | tr -d ' \n')"
    done
  fi
  rows+=("$t|${execs:--}|${rate:--}|$secs|$size|$crashes")
done

printf '%-18s %12s %10s %8s %8s %s\n' target executions exec/s seconds corpus crashes
for row in "${rows[@]}"; do
  IFS='|' read -r t e r s c k <<<"$row"
  printf '%-18s %12s %10s %8s %8s %s\n' "$t" "$e" "$r" "$s" "$c" "$k"
done
echo "run directory: $WORK"
exit $status
