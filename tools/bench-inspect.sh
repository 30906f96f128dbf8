#!/usr/bin/env bash
# Times `rangetap inspect` (text and --json) on a synthetic capture of 1 GiB with 10,000
# exchanges (tools/make-synthetic-capture.py), with peak RSS, against a baseline measured in the
# same run: Python's json.loads over the same events.jsonl. Also inspects a 64 MiB capture with
# the same number of exchanges, to show memory does not grow with body size.
# Env: RANGETAP (default .build/release/rangetap, built if missing), BENCH_TMPDIR (default /tmp).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${RANGETAP:-$root/.build/release/rangetap}
[ -x "$bin" ] || (cd "$root" && swift build -c release --product rangetap >&2)
work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/bench-inspect.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/tools/make-synthetic-capture.py" "$work/big.rtap" --exchanges 10000 --bytes $((1 << 30))
python3 "$root/tools/make-synthetic-capture.py" "$work/small.rtap" --exchanges 10000 --bytes $((64 << 20))
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {  # label, command...: median of 3 wall times and max RSS
  local label=$1; shift
  local times=() rss=0
  for _ in 1 2 3; do
    out=$( { /usr/bin/env time -f "%e %M" "$@" > /dev/null; } 2>&1 | tail -1)
    times+=("${out% *}")
    r=${out#* }; [ "$r" -gt "$rss" ] && rss=$r
  done
  t=$(printf '%s\n' "${times[@]}" | median)
  printf '%-34s %7.2f s  %7.1f MiB\n' "$label" "$t" "$(echo "$rss/1024" | bc -l)"
  echo "$t" > "$work/last"
}
echo "events: $(wc -l < "$work/big.rtap/events.jsonl") lines, body: $(du -h "$work/big.rtap/body.bin" | cut -f1)"
measure "baseline: python json.loads" python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$work/big.rtap/events.jsonl"; base=$(cat "$work/last")
measure "rangetap inspect (text), 1 GiB" "$bin" inspect "$work/big.rtap"; text=$(cat "$work/last")
measure "rangetap inspect --json, 1 GiB" "$bin" inspect "$work/big.rtap" --json; json=$(cat "$work/last")
measure "rangetap inspect --json, 64 MiB" "$bin" inspect "$work/small.rtap" --json
printf 'ratio to baseline: text %.1fx, json %.1fx   (target: under 2 s at 1 GiB / 10,000 exchanges)\n' "$(echo "$text/$base" | bc -l)" "$(echo "$json/$base" | bc -l)"
