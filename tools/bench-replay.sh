#!/usr/bin/env bash
# bench-replay.sh — `rangetap replay --cache sparse` of a 1 GiB synthetic capture
# (tools/make-synthetic-capture.py, 200 exchanges): time and peak RSS against the disk's own speed
# in the same run, copying body.bin once and reading it twice (replay reads the capture in both
# playbacks and writes the cache once). Also a 64 MiB capture: memory does not grow with body size.
# Knobs: RANGETAP=BIN (else the release build), BENCH_KEEP_TMP=1, BENCH_TMPDIR.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-replay
release_binary
python3 "$BENCH_TOOLS/make-synthetic-capture.py" "$T/big.rtap" --exchanges 200 --bytes $((1 << 30)) --chunk 262144
python3 "$BENCH_TOOLS/make-synthetic-capture.py" "$T/small.rtap" --exchanges 200 --bytes $((64 << 20)) --chunk 262144
run() { # run LABEL COMMAND...: sets LAST to its wall time
  local label=$1 out
  shift
  sync
  out=$({ /usr/bin/time -f "%e %M" "$@" >"$T/out.txt"; } 2>&1 | tail -n 1)
  LAST=${out% *}
  printf '%-40s %7s s  %7.1f MiB\n' "$label" "$LAST" "$(awk -v k="${out#* }" 'BEGIN { print k / 1024 }')"
}
run "baseline: cp body.bin + read it twice" sh -c 'cp "$1/body.bin" "$2" && cat "$1/body.bin" "$1/body.bin" >/dev/null && rm "$2"' sh "$T/big.rtap" "$T/copy.bin"
base=$LAST
run "rangetap replay --cache sparse, 1 GiB" "$BIN" replay "$T/big.rtap" --cache sparse --cache-dir "$T/cache"
t=$LAST
tail -n 1 "$T/out.txt"
rm -rf "$T/cache"
run "rangetap replay --cache sparse, 64 MiB" "$BIN" replay "$T/small.rtap" --cache sparse --cache-dir "$T/cache2"
echo "replay / disk baseline: $(ratio "$t" "$base")x"
