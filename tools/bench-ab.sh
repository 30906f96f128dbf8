#!/usr/bin/env bash
# bench-ab.sh — an A/B of two rangetap binaries in one run: the figures a change to the exchange
# path must hold, what a request costs each of rangetap's threads, and the least work beside them.
#
#   tools/bench-ab.sh BASELINE_BIN CANDIDATE_BIN    (one binary twice: its figures and the spread)
#
# A private nginx (one process, sendfile) serves a big file and a 16 KiB file on 127.0.0.1. Each
# round measures hashrelay and hashrelay --bodies (tools/hashrelay.c: copy + SHA-256, + a file
# append) on the big GET, then the baseline and the candidate in turn (the order alternating),
# each a fresh `record --upstream http://127.0.0.1:ORIGIN`:
#   bulk   one GET of the big file, with bodies and with --no-bodies: CPU s per GiB (user + system,
#          /proc), peak RSS (VmHWM, with bodies)
#   load   wrk -t2 -c8 -d5s of the 16 KiB file: requests/s; per thread (event loop NIO-ELT-*, then
#          the busy others by thread id: the writer starts before the upstream thread) CPU µs and
#          wake-ups (context switches) per request; the cores the machine kept busy; where a
#          request's time goes, from the capture's event times (request parsed -> upstream head ->
#          upstream end -> the connection's next request)
#   ttfb   30 GETs of the 16 KiB file on new connections, each after one straight to nginx: the
#          median added time to first byte
# Verdicts (candidate against baseline): CPU s/GiB <= +10 %, requests/s >= -10 %, added TTFB
# <= +0.5 ms, peak RSS <= +8 MiB. The per-request figures have none: they say where a move came from.
#
# Knobs: BENCH_ROUNDS (3), BENCH_SIZE_MB (512), BENCH_KEEP_TMP=1, BENCH_TMPDIR. Needs nginx, curl,
# wrk, gcc, libssl-dev (installed with apt-get when missing, as root). Exit 0, or 2 when it cannot run.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-ab

ab_binaries "tools/bench-ab.sh BASELINE_BIN CANDIDATE_BIN" "$@"
((${#BINS[@]} == 2)) || die "usage: tools/bench-ab.sh BASELINE_BIN CANDIDATE_BIN"
ROUNDS=${BENCH_ROUNDS:-3} SIZE_MB=${BENCH_SIZE_MB:-512} DUR=5 TTFB_N=30
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 9 ]] || die "BENCH_ROUNDS must be 1..9"
[[ $SIZE_MB =~ ^[0-9]+$ && $SIZE_MB -ge 8 && $SIZE_MB -le 4096 ]] || die "BENCH_SIZE_MB must be 8..4096"

need=()
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
[[ -e /usr/include/openssl/evp.h ]] || need+=(libssl-dev)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
need_origin_tools "${need[@]}"
mkdir -p "$T/www"
log "files: ${SIZE_MB} MiB and 16 KiB in $T/www"
head -c $((SIZE_MB << 20)) /dev/urandom >"$T/www/big.bin"
head -c 16384 /dev/urandom >"$T/www/f16k.bin"
cc -O2 -pthread -o "$T/hashrelay" "$BENCH_TOOLS/hashrelay.c" -lcrypto >"$T/hashrelay.cc.log" 2>&1 ||
  die "cannot build tools/hashrelay.c (see $T/hashrelay.cc.log)"
ORIGIN=$(free_port)
NGINX_MAIN="master_process off;"
nginx_conf origin "$ORIGIN" "sendfile on;" ""
start_nginx origin "$ORIGIN"

# bulk NAME SUFFIX BIN ARGS...: FIG[NAME,cpuSUFFIX,r], CPU s per GiB, and FIG[NAME,rssSUFFIX,r],
# peak RSS in KiB, of one big GET through a fresh rangetap.
bulk() {
  local name=$1 suffix=$2 bin=$3 bytes cpu hwm code
  shift 3
  start_record "$bin" --upstream "http://127.0.0.1:$ORIGIN" -o "$T/cap.rtap" "$@"
  read -r bytes _ _ code _ cpu hwm <<<"$(get_through "$RT_PID" "http://127.0.0.1:$RT_PORT/big.bin")"
  stop "$RT_PID" INT 60
  rm -rf "$T/cap.rtap"
  [[ $code == 200 && $bytes == $((SIZE_MB << 20)) ]] || die "the big GET through $bin got $code, $bytes bytes"
  FIG[$name,cpu$suffix,$r]=$(awk -v c="$cpu" -v mb="$SIZE_MB" 'BEGIN { printf "%.3f", c / (mb / 1024) }')
  FIG[$name,rss$suffix,$r]=$hwm
}
# relay KEY ARGS...: FIG[KEY,r], CPU s per GiB of hashrelay (its reaped per-connection child) on
# the same GET.
relay() {
  local key=$1 port bytes cpu code
  shift
  port=$(free_port)
  serve "$port" "$T/relay.log" "$T/hashrelay" "$port" "$ORIGIN" "$@" || die "hashrelay did not start"
  read -r bytes _ _ code _ cpu _ <<<"$(get_through "$SPAWNED" "http://127.0.0.1:$port/big.bin")"
  stop "$SPAWNED" TERM 10
  [[ $code == 200 && $bytes == $((SIZE_MB << 20)) ]] || die "the big GET through hashrelay got $code, $bytes bytes"
  FIG[$key,$r]=$(awk -v c="$cpu" -v mb="$SIZE_MB" 'BEGIN { printf "%.3f", c / (mb / 1024) }')
}
# threads PID: "tid comm context_switches cpu_ticks" per thread.
threads() {
  local t
  for t in /proc/"$1"/task/*; do
    echo "${t##*/} $(tr ' ' '_' <"$t/comm") $(awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s }' "$t/status") $(awk '{ print $14 + $15 }' "$t/stat")"
  done
}
# load NAME BIN ROUND: wrk's 16 KiB load through a fresh rangetap; sets FIG[NAME,KEY,ROUND] for
# rps, cores, cpu-/wake-{loop,upstream,writer,total} and the stages.
load() {
  local name=$1 r=$3 b0 b1 w0 w1 req k v
  start_record "$2" --upstream "http://127.0.0.1:$ORIGIN" -o "$T/cap.rtap"
  curl -s -o /dev/null "http://127.0.0.1:$RT_PORT/f16k.bin" || die "a GET through $2 failed"
  threads "$RT_PID" | sort >"$T/before"
  b0=$(machine_busy_ticks) w0=$(date +%s%N)
  timeout $((DUR + 30)) wrk -t2 -c8 -d"${DUR}s" -s "$BENCH_TOOLS/wrk-report.lua" "http://127.0.0.1:$RT_PORT/f16k.bin" >"$T/wrk.out" 2>&1 ||
    die "wrk failed: $(tail -n 3 "$T/wrk.out")"
  b1=$(machine_busy_ticks) w1=$(date +%s%N)
  threads "$RT_PID" | sort >"$T/after"
  stop "$RT_PID" INT 60
  req=$(val "$T/wrk.out" requests)
  [[ $req -gt 0 && $(val "$T/wrk.out" non2xx) == 0 ]] || die "wrk through $2: $req requests, $(val "$T/wrk.out" non2xx) not 2xx"
  FIG[$name,rps,$r]=$(val "$T/wrk.out" rps)
  FIG[$name,cores,$r]=$(cores_busy "$b0" "$b1" "$w0" "$w1")
  while read -r k v; do FIG[$name,$k,$r]=$v; done < <(
    join "$T/before" "$T/after" | awk -v n="$req" -v h="$HZ" '
      { cpu = ($7 - $4) / h * 1e6 / n; sw = ($6 - $3) / n
        if ($2 ~ /^NIO-ELT/) { lc += cpu; lw += sw } else if (cpu > 0.5) { busy[++m] = cpu; bsw[m] = sw }
        tc += cpu; tw += sw }
      END {
        printf "cpu-loop %.1f\nwake-loop %.3f\ncpu-total %.1f\nwake-total %.3f\n", lc, lw, tc, tw
        if (m >= 2) printf "cpu-writer %.1f\nwake-writer %.3f\ncpu-upstream %.1f\nwake-upstream %.3f\n", busy[1], bsw[1], busy[2], bsw[2] }'
    python3 - "$T/cap.rtap/events.jsonl" <<'PY'
import json, statistics, sys
ex, conns = {}, {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("ex") is None or e["type"] not in ("request", "response", "end"):
        continue
    ex.setdefault(e["ex"], {}).setdefault(e["type"], e["t"])
    if e["type"] == "request":
        conns.setdefault(e["conn"], []).append(e["ex"])
st = {"request-head": [], "head-end": [], "end-next": [], "cycle": []}
for xs in conns.values():
    for a, b in zip(xs, xs[1:] + [None]):
        d = ex[a]
        if not all(k in d for k in ("request", "response", "end")):
            continue
        st["request-head"].append(d["response"] - d["request"])
        st["head-end"].append(d["end"] - d["response"])
        if b is not None and "request" in ex[b]:
            st["end-next"].append(ex[b]["request"] - d["end"])
            st["cycle"].append(ex[b]["request"] - d["request"])
for k, v in st.items():
    if v:
        print(k, f"{statistics.median(v) / 1000:.1f}")
PY
  )
  rm -rf "$T/cap.rtap"
}

declare -A FIG
for ((r = 1; r <= ROUNDS; r++)); do
  order=(0 1)
  ((r % 2)) || order=(1 0)
  log "round $r/$ROUNDS: hashrelay"
  relay hashrelay
  rm -rf "$T/bodies" && mkdir "$T/bodies"
  relay hashrelay-bodies --bodies "$T/bodies"
  for i in "${order[@]}"; do
    name=${NAMES[$i]} bin=${BINS[$i]}
    log "round $r/$ROUNDS: $name"
    bulk "$name" "" "$bin"
    bulk "$name" -meta "$bin" --no-bodies
    load "$name" "$bin" "$r"
    start_record "$bin" --upstream "http://127.0.0.1:$ORIGIN" -o "$T/cap.rtap"
    read -r p d _ <<<"$(ttfb_pairs "$TTFB_N" 16384 "http://127.0.0.1:$ORIGIN/f16k.bin" -- "http://127.0.0.1:$RT_PORT/f16k.bin")"
    stop "$RT_PID" INT 60
    rm -rf "$T/cap.rtap"
    FIG[$name,ttfb,$r]=$(awk -v p="$p" -v d="$d" 'BEGIN { printf "%.3f", p - d }')
  done
done

# med KEY: the median over rounds of FIG[KEY,round] and "(min..max)"; value KEY: the median.
med() {
  local r
  for ((r = 1; r <= ROUNDS; r++)); do echo "${FIG[$1,$r]:-}"; done | awk 'NF' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "%s (%s..%s)", v[int((NR + 1) / 2)], v[1], v[NR]; else print "-" }'
}
value() { med "$1" | awk '{ print $1 }'; }
# row LABEL KEY [LIMIT]: both binaries' figures, c/b and, with a LIMIT (cpu, rps, ttfb, rss), the verdict.
row() {
  local b c verdict=""
  b=$(value "baseline,$2") c=$(value "candidate,$2")
  case ${3:-} in
    cpu) verdict=$(awk -v b="$b" -v c="$c" 'BEGIN { print (c <= b * 1.10) ? "held (<= +10 %)" : "NOT held (> +10 %)" }') ;;
    rps) verdict=$(awk -v b="$b" -v c="$c" 'BEGIN { print (c >= b * 0.90) ? "held (>= -10 %)" : "NOT held (< -10 %)" }') ;;
    ttfb) verdict=$(awk -v b="$b" -v c="$c" 'BEGIN { d = c - b; printf "%+.3f ms: %s", d, (d <= 0.5) ? "held (<= +0.5 ms)" : "NOT held" }') ;;
    rss) verdict=$(awk -v b="$b" -v c="$c" 'BEGIN { d = (c - b) / 1024; printf "%+.1f MiB: %s", d, (d <= 8) ? "held (<= +8 MiB)" : "NOT held" }') ;;
  esac
  printf '%-34s %-26s %-26s %-8s %s\n' "$1" "$(med "baseline,$2")" "$(med "candidate,$2")" "$(ratio "$c" "$b" 3)" "$verdict"
}

echo
echo "rangetap A/B: baseline ${BINS[0]}"
echo "              candidate ${BINS[1]}"
echo "$ROUNDS rounds, big body ${SIZE_MB} MiB, wrk -t2 -c8 -d${DUR}s on 16 KiB, $TTFB_N TTFB pairs; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %-26s %-26s %-8s %s\n' figure baseline candidate "c/b" verdict
row "CPU s/GiB, bodies" cpu cpu
row "CPU s/GiB, --no-bodies" cpu-meta cpu
row "requests/s, 16 KiB" rps rps
row "added TTFB ms" ttfb ttfb
row "peak RSS KiB (bulk, bodies)" rss rss
echo
echo "per 16 KiB request under wrk: CPU us and wake-ups per request, per thread (no verdict)"
for th in loop upstream writer total; do row "CPU us, $th" "cpu-$th"; done
for th in loop upstream writer total; do row "wake-ups, $th" "wake-$th"; done
row "cores busy (of $(nproc))" cores
for st in request-head head-end end-next cycle; do row "us, $st (capture medians)" "$st"; done
echo
printf '%-34s %s\n' "hashrelay CPU s/GiB" "$(med hashrelay)" "hashrelay-bodies CPU s/GiB" "$(med hashrelay-bodies)"
for n in baseline candidate; do
  printf '%-34s metadata %sx hashrelay, bodies %sx hashrelay-bodies\n' "$n / least work (CPU)" \
    "$(ratio "$(value "$n,cpu-meta")" "$(value hashrelay)")" "$(ratio "$(value "$n,cpu")" "$(value hashrelay-bodies)")"
done
