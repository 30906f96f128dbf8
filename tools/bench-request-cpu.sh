#!/usr/bin/env bash
# bench-request-cpu.sh — what one request costs rangetap, per thread: an A/B of two binaries.
#
#   tools/bench-request-cpu.sh BASELINE_BIN [CANDIDATE_BIN]
#
# A private nginx (one worker, tools/bench-lib.sh's config) serves a 16 KiB and a 512 KiB file of
# random bytes on 127.0.0.1. For each size and each round, each binary in turn (the order swapped
# every round) runs `record --upstream http://127.0.0.1:ORIGIN` with a fresh capture, takes one
# warm-up GET, then `wrk -t2 -c8 -dDURs` GETs the file through it. Per run it reads, from
# /proc/PID/task/*/stat and status, each rangetap thread's user+system CPU and its context
# switches (voluntary + involuntary: the wake-ups) before and after wrk, and divides by wrk's
# request count. Threads: the event loop (NIO-ELT-*), the upstream thread (libcurl's) and the
# capture writer; the two dispatch threads that start them keep their name, so they are told
# apart by what they do (the writer is the one with `write` to events.jsonl: here simply the
# thread whose CPU is not the loop's, ordered by thread id as they start: writer, then curl).
#
# Prints per size: median µs of CPU per request and wake-ups per request for each thread and in
# all, requests/s, the cores the whole machine kept busy during wrk (every process's CPU over the
# wall time, from /proc/stat: below nproc, requests wait for wake-ups rather than for a CPU),
# where a request's time goes (medians over the capture's exchanges, from its event times:
# request parsed -> the upstream's head -> the upstream's end -> the next request on that
# connection), and the candidate/baseline ratio of the total CPU (below 1: the candidate is
# cheaper). CPU per request is the steady figure on a shared machine; requests/s is not judged.
# With one binary, prints its figures only.
#
# Knobs: BENCH_ROUNDS (3), BENCH_DURATION (5) seconds per wrk run, BENCH_SIZES ("16k 512k"),
# BENCH_KEEP_TMP=1. Needs nginx, wrk, curl and python3 (installed with apt-get when missing, as root).
# Stops only the processes it started. Exit status 0, or 2 when it cannot run.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
. "$SCRIPT_DIR/bench-lib.sh"
bench_script bench-request-cpu

ab_binaries "tools/bench-request-cpu.sh BASELINE_BIN [CANDIDATE_BIN]" "$@"
ROUNDS=${BENCH_ROUNDS:-3}
DUR=${BENCH_DURATION:-5}
SIZES=(${BENCH_SIZES:-16k 512k})
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 20 ]] || die "BENCH_ROUNDS must be 1..20"
[[ $DUR =~ ^[0-9]+$ && $DUR -ge 1 && $DUR -le 60 ]] || die "BENCH_DURATION must be 1..60 seconds"
for s in "${SIZES[@]}"; do [[ $s == 16k || $s == 512k ]] || die "BENCH_SIZES: 16k and/or 512k, not '$s'"; done

need_load_tools

T=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-request-cpu.XXXXXX")
stop_on_exit
mkdir -p "$T/www"
head -c 16384 /dev/urandom >"$T/www/16k.bin"
head -c 524288 /dev/urandom >"$T/www/512k.bin"
# nginx's worker runs as another user: let it read them.
chmod a+rx "$T" "$T/www"
chmod a+r "$T/www/"*.bin
ORIGIN=$(free_port)
nginx_conf origin "$ORIGIN" "" ""
start_nginx origin "$ORIGIN"

# threads PID: "tid comm switches cpu_ticks" per thread.
threads() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s %s %s\n' "${t##*/}" "$(tr ' ' '_' <"$t/comm")" \
      "$(awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s }' "$t/status")" \
      "$(awk '{ print $14 + $15 }' "$t/stat")"
  done
}

# run NAME BIN SIZE ROUND: one measured run; appends "size name round thread cpu_us_per_req switches_per_req" rows.
run() {
  local name=$1 bin=$2 size=$3 round=$4 port pid req
  port=$(free_port)
  rm -rf "$T/cap.rtap"
  "$bin" record --listen "127.0.0.1:$port" --upstream "http://127.0.0.1:$ORIGIN" -o "$T/cap.rtap" >"$T/record.log" 2>&1 &
  pid=$!
  STARTED+=("$pid")
  wait_port "$port" || die "rangetap did not start: $(cat "$T/record.log")"
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/$size.bin") == 200 ]] || die "warm-up GET through rangetap did not get 200"
  threads "$pid" | sort >"$T/before"
  local busy0 busy1 wall0 wall1
  busy0=$(machine_busy_ticks) wall0=$(date +%s%N)
  "$WRK" -t2 -c8 "-d${DUR}s" "http://127.0.0.1:$port/$size.bin" >"$T/wrk.out"
  busy1=$(machine_busy_ticks) wall1=$(date +%s%N)
  threads "$pid" | sort >"$T/after"
  stop "$pid" INT 30
  # Cores busy: every process's CPU on the machine (wrk, nginx, rangetap, anything else) over
  # the run's wall time. Below nproc while every thread of the chain has work left means the
  # requests wait for wake-ups, not for a CPU.
  printf '%s %s %s cores %s 0\n' "$size" "$name" "$round" "$(cores_busy "$busy0" "$busy1" "$wall0" "$wall1")" >>"$T/rows"
  # Where a request's time goes, from the capture's own event times (one monotonic clock):
  # request parsed -> upstream head -> upstream end -> the next request on that connection.
  python3 - "$T/cap.rtap/events.jsonl" "$size" "$name" "$round" >>"$T/rows" <<'PY' || log "$name $size round $round: no stage figures (the capture's events.jsonl could not be read)"
import json, statistics, sys
path, size, name, k = sys.argv[1:]
ex, conns = {}, {}
for line in open(path):
    e = json.loads(line)
    x = e.get("ex")
    if x is None or e["type"] not in ("request", "response", "end"):
        continue
    d = ex.setdefault(x, {})
    d.setdefault(e["type"], e["t"])
    if e["type"] == "request":
        conns.setdefault(e["conn"], []).append(x)
stages = {"stage:request-head": [], "stage:head-end": [], "stage:end-next": [], "stage:cycle": []}
for xs in conns.values():
    for a, b in zip(xs, xs[1:] + [None]):
        d = ex[a]
        if not all(t in d for t in ("request", "response", "end")):
            continue
        stages["stage:request-head"].append(d["response"] - d["request"])
        stages["stage:head-end"].append(d["end"] - d["response"])
        if b is not None and "request" in ex[b]:
            stages["stage:end-next"].append(ex[b]["request"] - d["end"])
            stages["stage:cycle"].append(ex[b]["request"] - d["request"])
for stage, v in stages.items():
    if v:
        print(size, name, k, stage, f"{statistics.median(v) / 1000:.1f}", 0)
PY
  req=$(awk '/requests in/ { print $1 }' "$T/wrk.out")
  [[ $req =~ ^[0-9]+$ && $req -gt 0 ]] || die "wrk served nothing: $(cat "$T/wrk.out")"
  grep -q 'Non-2xx' "$T/wrk.out" && die "wrk saw non-2xx answers: $(cat "$T/wrk.out")"
  printf '%s %s %s rps %s 0\n' "$size" "$name" "$round" "$(awk '/Requests\/sec/ { print $2 }' "$T/wrk.out")" >>"$T/rows"
  # Threads that worked during the run; ticks are 1/100 s (USER_HZ).
  join "$T/before" "$T/after" | awk -v r="$req" -v s="$size" -v n="$name" -v k="$round" '
    { cpu = ($7 - $4) * 10000 / r; sw = ($6 - $3) / r
      if (cpu <= 0 && sw < 0.01) next
      th = ($2 ~ /^NIO-ELT/) ? "event-loop" : "other"
      if (th == "other") { others[++o] = $1; ocpu[$1] = cpu; osw[$1] = sw; next }
      printf "%s %s %s %s %.2f %.3f\n", s, n, k, th, cpu, sw; tc += cpu; ts += sw }
    END {
      # The two busy non-loop threads, by thread id: the writer starts before the curl thread.
      m = 0
      for (i = 1; i <= o; i++) if (ocpu[others[i]] > 0.5) busy[++m] = others[i]
      if (m >= 2) {
        printf "%s %s %s writer %.2f %.3f\n", s, n, k, ocpu[busy[1]], osw[busy[1]]
        printf "%s %s %s upstream %.2f %.3f\n", s, n, k, ocpu[busy[2]], osw[busy[2]]
      }
      for (i = 1; i <= o; i++) { tc += ocpu[others[i]]; ts += osw[others[i]] }
      printf "%s %s %s total %.2f %.3f\n", s, n, k, tc, ts }' >>"$T/rows"
}

: >"$T/rows"
for size in "${SIZES[@]}"; do
  for ((round = 1; round <= ROUNDS; round++)); do
    order=("${!BINS[@]}")
    ((round % 2 == 0 && ${#BINS[@]} == 2)) && order=(1 0)
    for i in "${order[@]}"; do
      log "$size round $round/${ROUNDS}: ${NAMES[$i]}"
      run "${NAMES[$i]}" "${BINS[$i]}" "$size" "$round"
    done
  done
done

echo "# bench-request-cpu: wrk -t2 -c8 -d${DUR}s through record --upstream, $ROUNDS rounds, medians; $(nproc) cores, $(uname -r)"
for i in "${!BINS[@]}"; do echo "# ${NAMES[$i]}: ${BINS[$i]}"; done
python3 - "$T/rows" "${NAMES[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
def med(size, name, thread, col):
    v = [float(r[col]) for r in rows if r[0] == size and r[1] == name and r[3] == thread]
    return statistics.median(v) if v else None
for size in dict.fromkeys(r[0] for r in rows):
    print(f"\n{size}: CPU µs per request (wake-ups per request)")
    print(f"  {'thread':<12}" + "".join(f"{n:>24}" for n in names))
    for thread in ("event-loop", "upstream", "writer", "total"):
        cells = []
        for n in names:
            c, s = med(size, n, thread, 4), med(size, n, thread, 5)
            cells.append("–" if c is None else f"{c:.1f} ({s:.2f})")
        print(f"  {thread:<12}" + "".join(f"{c:>24}" for c in cells))
    print(f"  {'requests/s':<12}" + "".join(f"{med(size, n, 'rps', 4):>24.0f}" for n in names))
    print(f"  {'cores busy':<12}" + "".join(f"{med(size, n, 'cores', 4):>24.2f}" for n in names))
    print(f"  where a request's time goes, µs (medians of the capture's exchanges; -c8, so each")
    print(f"  connection has one request in flight and the cycle is 8 / requests/s on average):")
    for stage, label in (("stage:request-head", "request -> upstream head"), ("stage:head-end", "head -> upstream end"),
                         ("stage:end-next", "end -> next request"), ("stage:cycle", "request -> next request")):
        cells = [med(size, n, stage, 4) for n in names]
        text = ["–" if c is None else f"{c:.1f}" for c in cells]
        print(f"  {label:<26}" + f"{text[0]:>10}" + "".join(f"{t:>24}" for t in text[1:]))
    if len(names) == 2:
        a, b = med(size, names[0], "total", 4), med(size, names[1], "total", 4)
        print(f"  candidate / baseline, CPU per request: {b / a:.3f}")
PY
