#!/usr/bin/env bash
# The player lab's accuracy (issue 13), measured on the client with curl against nginx, all on
# 127.0.0.1:
#   1. rate: a 10 MB (10^7 bytes) download through `record --shape rate=8mbit` (target 10 s ± 3 %);
#   2. latency: time to first byte of a 1 KiB file, `--shape latency=80ms` minus unshaped, medians
#      of 15 fresh connections each (target +80 ms ± 2 ms);
#   3. trace: bytes delivered over time under `--shape-trace tools/traces/drop-1500kbit-300kbit.trace`
#      against what the trace allows, per second (target within 5 %);
#   4. memory: a 1 GiB body at rate=100kbit for 20 s: RSS at 5 s and at 20 s (bounded: no growth).
# Knobs: RANGETAP=BIN (else the release build), BENCH_KEEP_TMP=1, BENCH_TMPDIR. Exit 0 when it ran.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-lab
need_origin_tools
release_binary
mkdir -p "$T/www"
head -c 10000000 /dev/urandom >"$T/www/ten.bin"
head -c 1024 /dev/urandom >"$T/www/k.bin"
head -c 12000000 /dev/urandom >"$T/www/trace.bin"
truncate -s 1G "$T/www/big.bin"
ORIGIN=$(free_port)
nginx_conf origin "$ORIGIN" "" ""
start_nginx origin "$ORIGIN"
origin="http://127.0.0.1:$ORIGIN"
trace=$BENCH_TOOLS/traces/drop-1500kbit-300kbit.trace
# start ARGS...: a fresh `record` with ARGS.
start() { rm -rf "$T/cap.rtap"; start_record "$BIN" -o "$T/cap.rtap" "$@"; }
curl_x() { curl -s -x "http://127.0.0.1:$RT_PORT" "$@"; }
ms_median() { awk '{ print $1 * 1000 }' | median 2; }
verdict() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { print (x >= lo && x <= hi) ? "PASS" : "FAIL" }'; }

echo "== 1. rate=8mbit, 10 MB"
start --shape rate=8mbit
t=$(curl_x -o /dev/null --max-time 60 -w '%{time_total}' "$origin/ten.bin")
stop "$RT_PID" INT 30
printf 'took %.3f s (target 10 s ± 3 %%: 9.7 to 10.3)  %s\n' "$t" "$(verdict "$t" 9.7 10.3)"

echo "== 2. latency=80ms, time to first byte"
for shape in none latency=80ms; do
  if [[ $shape == none ]]; then start; else start --shape "$shape"; fi
  for _ in $(seq 15); do curl_x -o /dev/null --max-time 10 -w '%{time_starttransfer}\n' "$origin/k.bin"; done >"$T/ttfb-$shape.txt"
  stop "$RT_PID" INT 30
done
unshaped=$(ms_median <"$T/ttfb-none.txt") shaped=$(ms_median <"$T/ttfb-latency=80ms.txt")
added=$(awk -v a="$shaped" -v b="$unshaped" 'BEGIN { printf "%.2f", a - b }')
printf 'unshaped %s ms, shaped %s ms: added %s ms (target 80 ± 2)  %s\n' "$unshaped" "$shaped" "$added" "$(verdict "$added" 78 82)"

echo "== 3. trace drop-1500kbit-300kbit (12 s)"
start --shape-trace "$trace"
curl_x -o /dev/null --max-time 20 "$origin/trace.bin" || true
stop "$RT_PID" INT 30
python3 - "$T/cap.rtap/events.jsonl" "$trace" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
shape_t = next(e["t"] for e in events if e["type"] == "shape")
deliv = [(e["t"], e["bytes"]) for e in events if e["type"] == "delivered"]
if not deliv:
    print("no delivered events  FAIL"); sys.exit(0)
trace = [int(l) for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
period = trace[-1]
def allowed(ms):  # bytes the trace lets through in [0, ms] (it repeats after its period)
    whole, rest = divmod(ms, period)
    return 1500 * (whole * len(trace) + sum(1 for x in trace if x <= rest))
# The link's clock starts at the shape event; compare from the first delivery on, once a second:
# the last `delivered` event at or before each second mark against what the trace allowed by that
# event's own time (events come per completed write, so comparing with the second mark itself
# would count the time since the last write as a shortfall).
t0 = deliv[0][0]; b0 = deliv[0][1]; a0 = allowed((t0 - shape_t) // 1_000_000)
worst = 0.0
rows = []
for sec in range(2, 11):
    t = t0 + sec * 1_000_000_000
    tt, b = max(((tt, b) for (tt, b) in deliv if tt <= t), default=(t0, b0))
    got = b - b0
    want = allowed((tt - shape_t) // 1_000_000) - a0
    err = abs(got - want) / want if want > 0 else 0.0
    worst = max(worst, err)
    rows.append(f"{sec:2d} s (event at {(tt - t0) / 1e9:6.3f} s): {got:>9d} B delivered, trace allows {want:>9d} B ({100*err:.1f} %)")
print("\n".join(rows))
print(f"worst deviation {100*worst:.1f} % (target within 5 %)  {'PASS' if worst <= 0.05 else 'FAIL'}")
PY

echo "== 4. 1 GiB at rate=100kbit, memory"
start --shape rate=100kbit
spawn "$T/slow.log" curl -s -x "http://127.0.0.1:$RT_PORT" -o /dev/null --max-time 21 "$origin/big.bin"
client=$SPAWNED
sleep 5
r5=$(awk '/VmRSS/ { print $2 / 1024 }' "/proc/$RT_PID/status")
sleep 15
r20=$(awk '/VmRSS/ { print $2 / 1024 }' "/proc/$RT_PID/status")
stop "$client" TERM 5
stop "$RT_PID" INT 30
growth=$(awk -v a="$r5" -v b="$r20" 'BEGIN { printf "%.1f", b - a }')
printf 'RSS %.1f MiB at 5 s, %.1f MiB at 20 s (growth %s MiB; bounded if < 2)  %s\n' "$r5" "$r20" "$growth" "$(verdict "$growth" -100 2)"
