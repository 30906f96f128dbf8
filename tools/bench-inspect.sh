#!/usr/bin/env bash
# bench-inspect.sh — `rangetap inspect` (text and --json) on a synthetic capture of 1 GiB with
# 10,000 exchanges (tools/make-synthetic-capture.py): median of 3 wall times and peak RSS, against
# Python's json.loads over the same events.jsonl in the same run. Also --json on a 64 MiB capture
# with as many exchanges: memory does not grow with body size.
# Knobs: RANGETAP=BIN (else the release build), BENCH_KEEP_TMP=1, BENCH_TMPDIR.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-inspect
release_binary
python3 "$BENCH_TOOLS/make-synthetic-capture.py" "$T/big.rtap" --exchanges 10000 --bytes $((1 << 30))
python3 "$BENCH_TOOLS/make-synthetic-capture.py" "$T/small.rtap" --exchanges 10000 --bytes $((64 << 20))
measure() { # measure LABEL COMMAND...: sets LAST to the median of 3 wall times
  local label=$1 out times=() rss=0
  shift
  for _ in 1 2 3; do
    out=$({ /usr/bin/time -f "%e %M" "$@" >/dev/null; } 2>&1 | tail -n 1)
    times+=("${out% *}")
    ((${out#* } > rss)) && rss=${out#* }
  done
  LAST=$(median 2 <<<"${times[*]}")
  printf '%-34s %7s s  %7.1f MiB\n' "$label" "$LAST" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
}
echo "events: $(wc -l <"$T/big.rtap/events.jsonl") lines, body: $(du -h "$T/big.rtap/body.bin" | cut -f1)"
measure "baseline: python json.loads" python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$T/big.rtap/events.jsonl"
base=$LAST
measure "rangetap inspect (text), 1 GiB" "$BIN" inspect "$T/big.rtap"
text=$LAST
measure "rangetap inspect --json, 1 GiB" "$BIN" inspect "$T/big.rtap" --json
json=$LAST
measure "rangetap inspect --json, 64 MiB" "$BIN" inspect "$T/small.rtap" --json
echo "ratio to baseline: text $(ratio "$text" "$base" 1)x, json $(ratio "$json" "$base" 1)x"
