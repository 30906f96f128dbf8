#!/usr/bin/env bash
# bench-ab.sh — an A/B of two rangetap binaries in one run, on the figures a change to the
# exchange path must hold: CPU seconds per GiB of a big body (with bodies recorded, and
# --no-bodies), requests/s of a 16 KiB player load, added time to first byte, peak RSS; and, as
# the floor every round measures beside them, the least-work relays (tools/hashrelay.c: copy and
# SHA-256; with --bodies, also the file append).
#
#   tools/bench-ab.sh BASELINE_BIN CANDIDATE_BIN
#
# A private nginx (one worker) serves a big file and a 16 KiB file on 127.0.0.1. Each round runs
# the baseline and the candidate in turn (the order alternates per round), each a fresh
# `record --upstream http://127.0.0.1:ORIGIN` (a reverse proxy, as tools/bench-load.sh drives it):
#   bulk      one curl GET of the big file; the proxy's CPU (utime+stime from /proc) per GiB, its
#             peak RSS (VmHWM); once with bodies, once with --no-bodies
#   load      wrk -t2 -c8 -d${DUR}s of the 16 KiB file; requests/s
#   ttfb      BENCH_TTFB sequential curl GETs of the 16 KiB file on new connections; median
#             time_starttransfer minus the median of the same GETs straight to nginx
# and hashrelay (metadata) and hashrelay --bodies (bodies) on the same big GET, for their CPU per GiB.
# Prints each figure per binary (median over rounds, and min..max), the candidate/baseline ratio,
# and the verdict against the limits of a change that must hold speed: CPU/GiB within +10 %,
# requests/s within -10 %, TTFB within +0.5 ms, peak RSS within +8 MiB.
#
# Knobs: BENCH_ROUNDS (3), BENCH_SIZE_MB (512), BENCH_DURATION (5), BENCH_TTFB (30),
# BENCH_KEEP_TMP=1. Needs nginx, curl, wrk, gcc (installed with apt-get when missing, as root).
# Stops only the processes it started. Exit status 0, or 2 when it cannot run.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
. "$SCRIPT_DIR/bench-lib.sh"
bench_script bench-ab

ab_binaries "tools/bench-ab.sh BASELINE_BIN CANDIDATE_BIN" "$@"
(( ${#BINS[@]} == 2 )) || die "usage: tools/bench-ab.sh BASELINE_BIN CANDIDATE_BIN"
ROUNDS=${BENCH_ROUNDS:-3}
SIZE_MB=${BENCH_SIZE_MB:-512}
DUR=${BENCH_DURATION:-5}
TTFB_N=${BENCH_TTFB:-30}
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 9 ]] || die "BENCH_ROUNDS must be 1..9"
[[ $SIZE_MB =~ ^[0-9]+$ && $SIZE_MB -ge 16 && $SIZE_MB -le 4096 ]] || die "BENCH_SIZE_MB must be 16..4096"
[[ $DUR =~ ^[0-9]+$ && $DUR -ge 1 && $DUR -le 60 ]] || die "BENCH_DURATION must be 1..60"
[[ $TTFB_N =~ ^[0-9]+$ && $TTFB_N -ge 5 && $TTFB_N -le 500 ]] || die "BENCH_TTFB must be 5..500"

need_pkgs=()
command -v cc >/dev/null 2>&1 || need_pkgs+=(gcc libc6-dev)
command -v wrk >/dev/null 2>&1 || need_pkgs+=(wrk)
need_origin_tools "${need_pkgs[@]}"
WRK=$(command -v wrk) || die "wrk is missing (apt-get install -y wrk)"

T=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-ab.XXXXXX")
stop_on_exit
mkdir -p "$T/www"
log "files: ${SIZE_MB} MiB and 16 KiB in $T/www"
head -c $((SIZE_MB << 20)) /dev/urandom >"$T/www/big.bin"
head -c 16384 /dev/urandom >"$T/www/f16k.bin"
cc -O2 -pthread -o "$T/hashrelay" "$SCRIPT_DIR/hashrelay.c" -lcrypto >"$T/hashrelay.cc.log" 2>&1 \
  || die "cannot build tools/hashrelay.c: cc -O2 -pthread tools/hashrelay.c -lcrypto (libssl-dev; see $T/hashrelay.cc.log)"

ORIGIN=$(free_port)
cat >"$T/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1; pid $T/nginx.pid; error_log $T/nginx.err;
events { worker_connections 1024; }
http { access_log off; sendfile on; keepalive_requests 1000000;
  client_body_temp_path $T; proxy_temp_path $T; fastcgi_temp_path $T; uwsgi_temp_path $T; scgi_temp_path $T;
  server { listen 127.0.0.1:$ORIGIN; root $T/www; } }
EOF
"$NGINX" -c "$T/nginx.conf" -p "$T" >"$T/nginx.out" 2>&1 &
STARTED+=($!)
wait_port "$ORIGIN" || die "nginx did not start"

TICKS=$(getconf CLK_TCK)

# start_rangetap BIN ARGS...: a reverse proxy to the origin on a free port; sets RT_PID, RT_PORT.
start_rangetap() {
  local bin=$1
  shift
  RT_PORT=$(free_port)
  rm -rf "$T/cap.rtap"
  "$bin" record --listen "127.0.0.1:$RT_PORT" --upstream "http://127.0.0.1:$ORIGIN" -o "$T/cap.rtap" "$@" >"$T/rt.out" 2>&1 &
  RT_PID=$!
  STARTED+=("$RT_PID")
  wait_port "$RT_PORT" || die "rangetap did not start (see $T/rt.out)"
}
stop_rangetap() {
  stop "$RT_PID" INT 20
  forget "$RT_PID"
  rm -rf "$T/cap.rtap"
}

# bulk BIN ARGS...: CPU seconds per GiB and peak RSS (KiB) of one big GET; prints "CPU RSS".
bulk() {
  local bin=$1 c0 c1 rss
  shift
  start_rangetap "$bin" "$@"
  c0=$(cpu_ticks "$RT_PID")
  curl -s --noproxy '*' -o /dev/null --max-time 600 "http://127.0.0.1:$RT_PORT/big.bin" || die "bulk GET through $bin failed"
  c1=$(cpu_ticks "$RT_PID")
  rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$RT_PID/status")
  stop_rangetap
  awk -v d=$((c1 - c0)) -v t="$TICKS" -v mb="$SIZE_MB" -v rss="$rss" 'BEGIN { printf "%.3f %d\n", d / t / (mb / 1024), rss }'
}

# relay ARGS...: CPU seconds per GiB of the hashing relay's connection on the same GET (its child
# prints `cpu_s S` when the connection ends); ARGS: --bodies DIR, or none.
relay() {
  local port pid cpu
  port=$(free_port)
  "$T/hashrelay" "$port" "$ORIGIN" "$@" >"$T/relay.out" 2>"$T/relay.err" &
  pid=$!
  STARTED+=("$pid")
  wait_port "$port" || die "hashrelay did not start (see $T/relay.err)"
  : >"$T/relay.err"
  curl -s --noproxy '*' -o /dev/null --max-time 600 "http://127.0.0.1:$port/big.bin" || die "bulk GET through hashrelay failed"
  for _ in $(seq 1 100); do grep -q '^cpu_s ' "$T/relay.err" && break; sleep 0.05; done
  stop "$pid" TERM 10
  forget "$pid"
  rm -rf "$T/relay-bodies"
  cpu=$(awk '$1 == "cpu_s" { print $2 }' "$T/relay.err" | tail -n 1)
  [[ -n $cpu ]] || die "hashrelay printed no cpu_s (see $T/relay.err)"
  awk -v c="$cpu" -v mb="$SIZE_MB" 'BEGIN { printf "%.3f\n", c / (mb / 1024) }'
}

# load BIN: requests/s of wrk's 16 KiB load.
load() {
  start_rangetap "$1"
  "$WRK" -t2 -c8 -d"${DUR}s" -s "$SCRIPT_DIR/wrk-report.lua" "http://127.0.0.1:$RT_PORT/f16k.bin" >"$T/wrk.out" 2>&1 || die "wrk failed (see $T/wrk.out)"
  stop_rangetap
  awk -F= '/^non2xx=/ && $2 != 0 { bad = 1 } /^rps=/ { r = $2 } END { if (bad) r = "bad"; print r }' "$T/wrk.out"
}

# ttfb_median URL [CURL ARGS...]: median time_starttransfer (ms) of TTFB_N new connections.
ttfb_median() {
  local url=$1 i
  for ((i = 0; i < TTFB_N; i++)); do
    curl -s --noproxy '*' -o /dev/null -w '%{time_starttransfer}\n' "$url"
  done | sort -n | awk '{ v[NR] = $1 * 1000 } END { printf "%.3f\n", v[int((NR + 1) / 2)] }'
}
ttfb() {
  start_rangetap "$1"
  ttfb_median "http://127.0.0.1:$RT_PORT/f16k.bin"
  stop_rangetap
}

declare -A FIG
for ((r = 1; r <= ROUNDS; r++)); do
  order=(0 1)
  ((r % 2 == 0)) && order=(1 0)
  direct=$(ttfb_median "http://127.0.0.1:$ORIGIN/f16k.bin")
  FIG[hashrelay,$r]=$(relay)
  mkdir -p "$T/relay-bodies"
  FIG[hashrelay-bodies,$r]=$(relay --bodies "$T/relay-bodies")
  for i in "${order[@]}"; do
    name=${NAMES[$i]} bin=${BINS[$i]}
    log "round $r/$ROUNDS: $name"
    read -r FIG[$name,cpu,$r] FIG[$name,rss,$r] < <(bulk "$bin")
    read -r FIG[$name,cpu-meta,$r] _ < <(bulk "$bin" --no-bodies)
    FIG[$name,rps,$r]=$(load "$bin")
    t=$(ttfb "$bin")
    FIG[$name,ttfb,$r]=$(awk -v a="$t" -v b="$direct" 'BEGIN { printf "%.3f\n", a - b }')
  done
done

# med KEY: median over rounds of FIG[KEY,round], then "min..max".
med() {
  local r
  for ((r = 1; r <= ROUNDS; r++)); do echo "${FIG[$1,$r]}"; done | sort -g | awk '
    { v[NR] = $1 } END { printf "%s (%s..%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
value() { med "$1" | awk '{ print $1 }'; }

echo
echo "rangetap A/B: baseline ${BINS[0]}"
echo "              candidate ${BINS[1]}"
echo "$ROUNDS rounds, big body ${SIZE_MB} MiB, wrk -t2 -c8 -d${DUR}s on 16 KiB, $TTFB_N TTFB samples; $(nproc) cores"
printf '%-34s %-26s %-26s %-8s %s\n' figure baseline candidate "c/b" verdict
row() { # row LABEL KEY LIMIT-KIND
  local b c ratio verdict
  b=$(value "baseline,$2") c=$(value "candidate,$2")
  ratio=$(awk -v b="$b" -v c="$c" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.3f", c / b }')
  case $3 in
    cpu) verdict=$(awk -v x="$ratio" 'BEGIN { print (x != "-" && x <= 1.10) ? "held (<= +10 %)" : "NOT held (> +10 %)" }') ;;
    rps) verdict=$(awk -v x="$ratio" 'BEGIN { print (x != "-" && x >= 0.90) ? "held (>= -10 %)" : "NOT held (< -10 %)" }') ;;
    ttfb) verdict=$(awk -v b="$b" -v c="$c" 'BEGIN { d = c - b; printf "%+.3f ms: %s", d, (d <= 0.5) ? "held (<= +0.5 ms)" : "NOT held" }') ;;
    rss) verdict=$(awk -v b="$b" -v c="$c" 'BEGIN { d = (c - b) / 1024; printf "%+.1f MiB: %s", d, (d <= 8) ? "held (<= +8 MiB)" : "NOT held" }') ;;
  esac
  printf '%-34s %-26s %-26s %-8s %s\n' "$1" "$(med "baseline,$2")" "$(med "candidate,$2")" "$ratio" "$verdict"
}
row "CPU s/GiB, bodies" cpu cpu
row "CPU s/GiB, --no-bodies" cpu-meta cpu
row "requests/s, 16 KiB" rps rps
row "added TTFB ms" ttfb ttfb
row "peak RSS KiB (bulk, bodies)" rss rss
echo
hr=$(value hashrelay) hrb=$(value hashrelay-bodies)
printf '%-34s %s\n' "hashrelay CPU s/GiB" "$(med hashrelay)" "hashrelay-bodies CPU s/GiB" "$(med hashrelay-bodies)"
for n in baseline candidate; do
  awk -v n="$n" -v m="$(value "$n,cpu-meta")" -v b="$(value "$n,cpu")" -v hr="$hr" -v hrb="$hrb" 'BEGIN {
    printf "%-34s metadata %.2fx hashrelay, bodies %.2fx hashrelay-bodies\n", n " / least work (CPU)", m / hr, b / hrb }'
done
