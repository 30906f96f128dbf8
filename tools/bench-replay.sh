#!/usr/bin/env bash
# Replays a 1 GiB synthetic capture (tools/make-synthetic-capture.py, 200 exchanges) through the
# sparse cache and reports time and peak RSS against the disk's own speed measured in the same
# run: copying body.bin once and reading it twice (replay reads the capture in both playbacks
# and writes the cache once). Also a 64 MiB capture, to show memory does not grow with body size.
# Env: RANGETAP (default .build/release/rangetap, built if missing), BENCH_TMPDIR (default /tmp).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${RANGETAP:-$root/.build/release/rangetap}
[ -x "$bin" ] || (cd "$root" && swift build -c release --product rangetap >&2)
work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/bench-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/tools/make-synthetic-capture.py" "$work/big.rtap" --exchanges 200 --bytes $((1 << 30)) --chunk 262144
python3 "$root/tools/make-synthetic-capture.py" "$work/small.rtap" --exchanges 200 --bytes $((64 << 20)) --chunk 262144
run() {  # label, command...
  local label=$1; shift
  sync
  out=$( { /usr/bin/env time -f "%e %M" "$@" > "$work/out.txt"; } 2>&1 | tail -1)
  printf '%-40s %7.2f s  %7.1f MiB\n' "$label" "${out% *}" "$(echo "${out#* }/1024" | bc -l)"
  echo "${out% *}" > "$work/last"
}
run "baseline: cp body.bin + read it twice" sh -c "cp '$work/big.rtap/body.bin' '$work/copy.bin' && cat '$work/big.rtap/body.bin' '$work/big.rtap/body.bin' > /dev/null && rm '$work/copy.bin'"
base=$(cat "$work/last")
run "rangetap replay --cache sparse, 1 GiB" "$bin" replay "$work/big.rtap" --cache sparse --cache-dir "$work/cache"
t=$(cat "$work/last"); tail -1 "$work/out.txt"; rm -rf "$work/cache"
run "rangetap replay --cache sparse, 64 MiB" "$bin" replay "$work/small.rtap" --cache sparse --cache-dir "$work/cache2"
printf 'replay / disk baseline: %.2fx\n' "$(echo "$t/$base" | bc -l)"
