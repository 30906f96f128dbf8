#!/usr/bin/env bash
# bench-load.sh — a player's load through `rangetap record --upstream` (issue 15, "Performance").
#
# Many small and medium responses on keep-alive connections: `wrk -t2 -c8 -d${DUR}s` GETs one
# object over and over, 16 KiB (16k.bin) and 512 KiB (512k.bin) of random bytes, served by a
# private nginx origin (generated config in a temp dir, free port on 127.0.0.1). Configurations,
# each in front of that origin:
#   nginx-direct       wrk against the origin itself (reference only, judged against nothing)
#   nginx-proxy        a second nginx as a reverse proxy: proxy_pass to an upstream block with
#                      keepalive 16, proxy_http_version 1.1, proxy_buffering off
#   rangetap           rangetap record --upstream http://127.0.0.1:ORIGIN (bodies recorded)
#   rangetap-nobodies  the same with --no-bodies (heads, timings and SHA-256 only)
#   mitm               mitmdump -q --mode reverse:http://127.0.0.1:ORIGIN --set stream_large_bodies=1
#                      (mitmproxy streams bodies larger than that option: here every body)
# Both nginx run with `worker_processes auto` (one worker per core; BENCH_NGINX_WORKERS to change).
#
# A round runs every configuration once per size, the order rotated by one each round (round 1:
# the list above, round 2 starts with nginx-proxy, ...). rangetap is started fresh for every run
# with its own capture; the other configurations run for the whole benchmark.
# Figures: the median of the rounds' requests/s per configuration and size; CPU seconds (user +
# system from /proc/PID/stat, the process and its children, summed over the rounds) per 10,000
# requests, the steadier figure on a shared machine. rangetap's CPU is read from its start to the
# end of the run (before SIGINT: closing the capture is not counted); nginx-proxy's is the proxy
# alone, not the origin behind it; nginx-direct's is the origin. Cores busy: the whole machine's
# CPU during wrk (every process: wrk, both nginx, the proxy; /proc/stat) over wrk's wall time,
# the median of the rounds. A configuration that keeps fewer cores busy than another while both
# have requests in flight spends its time waiting for wake-ups, not for a CPU.
# TARGETS (PASS/FAIL with the ratio of medians), for rangetap and for rangetap-nobodies, each size:
#   >= 0.8 x nginx-proxy        >= 5 x mitm
#   and, without a verdict, nginx-proxy's own rate against mitm's: where it is under 5x, the
#   5x mitm target asks rangetap to be faster than the reverse proxy it is held to
# CORRECTNESS (PASS/FAIL): wrk's "Non-2xx or 3xx responses" is 0 in every run (tools/wrk-report.lua
# prints wrk's totals); after every run one curl GET through the configuration gets the object's
# exact bytes (SHA-256); after every rangetap run `rangetap summary` of the capture counts
# wrk's requests + 1 (the curl check) exchanges, up to 8 more allowed: wrk stops with at most one
# request in flight per connection (8), which rangetap records (cancelled) but wrk does not count.
# Socket errors wrk reports (connect/read/write/timeout) are printed, and judged only as part of
# the request count above.
#
# Usage: tools/bench-load.sh
# Environment:
#   BENCH_QUICK=1        2 rounds of 3 s, both sizes (about a minute and a half)
#   BENCH_ROUNDS (5)     rounds; BENCH_DURATION (10) seconds per wrk run
#   BENCH_SIZES          "16k 512k" (default) or one of them
#   BENCH_NO_MITM=1      no mitmproxy rows (printed as "not run: BENCH_NO_MITM=1")
#   BENCH_NGINX_WORKERS  worker_processes of both nginx (default auto)
#   RANGETAP=BIN         use this binary; otherwise the one tools/install.sh builds
#                        (`swift build -c release --product rangetap --static-swift-stdlib`)
#   BENCH_KEEP_TMP=1     keep the temp dir (logs, wrk outputs; captures are removed after each run)
#   BENCH_TMPDIR (/tmp)  where the temp dir goes (a 512 KiB run with bodies writes gigabytes)
#   BENCH_AB_BASELINE=BIN  after the report, an A/B of this rangetap against BIN (the previous
#                        main's release build) in the same run: tools/bench-ab.sh BIN THIS (its
#                        player-load requests/s, CPU per GiB, TTFB and RSS, and the hashrelay floor)
# Packages: nginx-light, wrk and curl with apt-get when missing (as root); mitmproxy with pip into
# tools/.venv, as tools/bench-proxy.sh does (when that fails the mitm rows say "not run: reason").
# The report goes to stdout, progress to stderr. Exit status: 0 all PASS, 1 a FAIL, 2 setup failure.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
. "$SCRIPT_DIR/bench-lib.sh"
. "$SCRIPT_DIR/mitm-venv.sh"
bench_script bench-load

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  ROUNDS=${BENCH_ROUNDS:-2} DUR=${BENCH_DURATION:-3}
else
  ROUNDS=${BENCH_ROUNDS:-5} DUR=${BENCH_DURATION:-10}
fi
SIZES=(${BENCH_SIZES:-16k 512k})
CONNS=8
THREADS=2
NGINX_WORKERS=${BENCH_NGINX_WORKERS:-auto}
NO_MITM=${BENCH_NO_MITM:-0}
VENV="$SCRIPT_DIR/.venv"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 50 ]] || die "BENCH_ROUNDS must be 1..50"
[[ $DUR =~ ^[0-9]+$ && $DUR -ge 1 && $DUR -le 300 ]] || die "BENCH_DURATION must be 1..300 seconds"
for s in "${SIZES[@]}"; do [[ $s == 16k || $s == 512k ]] || die "BENCH_SIZES: 16k and/or 512k, not '$s'"; done
((${#SIZES[@]})) || die "BENCH_SIZES is empty"
bytes_of() { case $1 in 16k) echo 16384 ;; 512k) echo 524288 ;; esac; }

# ---------------------------------------------------------------- packages
need_load_tools

mitm_prepare "$VENV" "$NO_MITM"

# ---------------------------------------------------------------- binary
release_binary

# ---------------------------------------------------------------- report header (machine line first)
mem_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
COMMIT=$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')
echo "# bench-load.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)$([[ ${BENCH_QUICK:-0} == 1 ]] && echo "  BENCH_QUICK=1")"
echo "# machine: nproc=$(nproc)  kernel=$(uname -r)  RAM=$(awk -v k="$mem_kib" 'BEGIN { printf "%.1f GiB", k / 1048576 }')  load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# rangetap $("$BIN" --version 2>/dev/null || echo '?') ($BIN, repo at $COMMIT)  nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  $("$WRK" -v 2>&1 | head -n 1 | awk '{ print $1, $2 }')  mitmproxy $([[ -z $MITM_REASON ]] && "$MITMDUMP" --version 2>/dev/null | awk '/^Mitmproxy/ { print $2 }' || echo "not run: $MITM_REASON")"
echo "# load: wrk -t$THREADS -c$CONNS -d${DUR}s, $ROUNDS rounds, order rotated each round; sizes: ${SIZES[*]}; nginx worker_processes $NGINX_WORKERS"

# ---------------------------------------------------------------- temp dir, processes
T=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/bench-load.XXXXXX")
stop_on_exit

HZ=$(getconf CLK_TCK)

# ---------------------------------------------------------------- origin, nginx proxy
mkdir -p "$T/www"
declare -A SHA
for s in "${SIZES[@]}"; do
  head -c "$(bytes_of "$s")" /dev/urandom >"$T/www/$s.bin"
  SHA[$s]=$(sha256sum "$T/www/$s.bin" | cut -d' ' -f1)
done
# nginx started as root runs its workers as nobody: they must be able to read the objects
chmod a+rx "$T" "$T/www"
chmod a+r "$T/www/"*.bin

# Both nginx: master and workers (BENCH_NGINX_WORKERS).
NGINX_MAIN="worker_processes $NGINX_WORKERS;"

ORIGIN_PORT=$(free_port)
nginx_conf origin "$ORIGIN_PORT" "" ""
start_nginx origin "$ORIGIN_PORT"
ORIGIN_PID=$NGINX_STARTED_PID
ORIGIN=http://127.0.0.1:$ORIGIN_PORT
log "nginx origin pid $ORIGIN_PID on 127.0.0.1:$ORIGIN_PORT"

PROXY_PORT=$(free_port)
nginx_conf proxy "$PROXY_PORT" "upstream origin { server 127.0.0.1:$ORIGIN_PORT; keepalive 16; }" \
  "proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection \"\"; proxy_buffering off;"
start_nginx proxy "$PROXY_PORT"
PROXY_PID=$NGINX_STARTED_PID
log "nginx reverse proxy pid $PROXY_PID on 127.0.0.1:$PROXY_PORT"

# ---------------------------------------------------------------- mitmproxy
MITM_PID="" MITM_PORT=""
if [[ -z $MITM_REASON ]]; then
  MITM_PORT=$(free_port)
  mkdir -p "$T/mitm-conf"
  "$MITMDUMP" -q --mode "reverse:$ORIGIN" --listen-host 127.0.0.1 -p "$MITM_PORT" \
    --set stream_large_bodies=1 --set "confdir=$T/mitm-conf" >"$T/mitm.log" 2>&1 &
  MITM_PID=$!
  STARTED+=("$MITM_PID")
  if wait_port "$MITM_PORT" && wait_port "$MITM_PORT"; then
    log "mitmdump pid $MITM_PID on 127.0.0.1:$MITM_PORT"
  else
    MITM_REASON="mitmdump did not listen within 20 s: $(tail -n 1 "$T/mitm.log" 2>/dev/null)"
    stop "$MITM_PID" TERM 5
    MITM_PID=""
  fi
fi

CONFIGS=(nginx-direct nginx-proxy rangetap rangetap-nobodies)
[[ -z $MITM_REASON ]] && CONFIGS+=(mitm)

# ---------------------------------------------------------------- one run
declare -A RPS CPU CORES REQ NON2XX SOCKERR BODYBAD CAPBAD CAPNOTE
FAILS=0

run() {  # run CONFIG SIZE ROUND
  local cfg=$1 size=$2 r=$3 port pid="" cap="" out="$T/wrk-$1-$2-$3.out" c0 c1 rt_pid="" code
  case $cfg in
    nginx-direct) port=$ORIGIN_PORT; pid=$ORIGIN_PID ;;
    nginx-proxy) port=$PROXY_PORT; pid=$PROXY_PID ;;
    mitm) port=$MITM_PORT; pid=$MITM_PID ;;
    rangetap | rangetap-nobodies)
      port=$(free_port)
      cap="$T/run.rtap"
      rm -rf "$cap"
      local extra=()
      [[ $cfg == rangetap-nobodies ]] && extra=(--no-bodies)
      "$BIN" record --listen "127.0.0.1:$port" --upstream "$ORIGIN" "${extra[@]}" -o "$cap" >"$T/rangetap-$cfg-$size-$r.log" 2>&1 &
      rt_pid=$!
      pid=$rt_pid
      STARTED+=("$rt_pid")
      wait_port "$port" || { cat "$T/rangetap-$cfg-$size-$r.log" >&2; die "rangetap did not start"; }
      ;;
  esac
  c0=$(cpu_ticks "$pid")
  local busy0 wall0 busy1 wall1
  busy0=$(machine_busy_ticks) wall0=$(date +%s%N)
  timeout $((DUR + 60)) "$WRK" -t"$THREADS" -c"$CONNS" -d"${DUR}s" -s "$SCRIPT_DIR/wrk-report.lua" \
    "http://127.0.0.1:$port/$size.bin" >"$out" 2>&1 || log "$cfg $size round $r: wrk exited with status $?"
  c1=$(cpu_ticks "$pid")
  busy1=$(machine_busy_ticks) wall1=$(date +%s%N)
  CORES[$cfg,$size]+="$(cores_busy "$busy0" "$busy1" "$wall0" "$wall1") "
  # the exact bytes once through this configuration
  code=$(curl -sS --max-time 30 -o "$T/check.bin" -w '%{http_code}' "http://127.0.0.1:$port/$size.bin" 2>>"$T/curl.err" || true)
  if [[ $code != 200 || $(sha256sum "$T/check.bin" 2>/dev/null | cut -d' ' -f1) != "${SHA[$size]}" ]]; then
    BODYBAD[$cfg,$size]=$((${BODYBAD[$cfg,$size]:-0} + 1))
    log "$cfg $size round $r: curl check got status $code and not the object's bytes"
  fi
  rm -f "$T/check.bin"
  local req non2xx serr rps
  req=$(val "$out" requests); non2xx=$(val "$out" non2xx); rps=$(val "$out" rps)
  serr=0
  for k in connect read write timeout; do serr=$((serr + $(val "$out" "$k" | awk '{ print $1 + 0 }'))); done
  if [[ -z $req || -z $rps ]]; then
    log "$cfg $size round $r: no figures from wrk:"; sed 's/^/    /' "$out" >&2
    req=0 non2xx=1 rps=0
  fi
  RPS[$cfg,$size]+="$rps "
  REQ[$cfg,$size]=$((${REQ[$cfg,$size]:-0} + req))
  CPU[$cfg,$size]=$((${CPU[$cfg,$size]:-0} + c1 - c0))
  NON2XX[$cfg,$size]=$((${NON2XX[$cfg,$size]:-0} + non2xx))
  SOCKERR[$cfg,$size]=$((${SOCKERR[$cfg,$size]:-0} + serr))
  local note=""
  if [[ -n $rt_pid ]]; then
    stop "$rt_pid" INT 120
    [[ $STOP_RC == 0 ]] || { note=" exit=$STOP_RC"; CAPBAD[$cfg,$size]=$((${CAPBAD[$cfg,$size]:-0} + 1)); }
    local line ex want=$((req + 1))
    line=$("$BIN" summary "$cap" 2>&1 | tail -n 1 || true)
    ex=$(sed -n 's/^\([0-9][0-9]*\) exchanges.*/\1/p' <<<"$line")
    if [[ -z $ex ]] || ((ex < want || ex > want + CONNS)); then
      CAPBAD[$cfg,$size]=$((${CAPBAD[$cfg,$size]:-0} + 1))
      log "$cfg $size round $r: capture: '$line', wrk counted $req (+1 curl)"
    fi
    note="$note capture=${ex:-?}/wrk+1=$want"
    CAPNOTE[$cfg,$size]+="$([[ -n $ex ]] && printf '%+d' $((ex - want)) || echo '?') "
    rm -rf "$cap"
  fi
  log "$(printf '%-18s %-5s round %d: %9.1f req/s  requests=%s non2xx=%s sockerr=%s cpu=%.2fs%s' "$cfg" "$size" "$r" "$rps" "$req" "$non2xx" "$serr" "$(awk -v t=$((c1 - c0)) -v h="$HZ" 'BEGIN { print t / h }')" "$note")"
}

# ---------------------------------------------------------------- rounds
n=${#CONFIGS[@]}
for ((r = 1; r <= ROUNDS; r++)); do
  order=()
  for ((i = 0; i < n; i++)); do order+=("${CONFIGS[$(((i + r - 1) % n))]}"); done
  log "round $r of $ROUNDS: ${order[*]}"
  for size in "${SIZES[@]}"; do
    for cfg in "${order[@]}"; do run "$cfg" "$size" "$r"; done
  done
done

# ---------------------------------------------------------------- report
declare -A MED
echo "# load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-5s %-18s %12s %-44s %10s %10s %8s %8s %s\n' size config "median_req/s" "rounds (req/s)" "CPU_s/10k" cores_busy non2xx sockerr capture
for size in "${SIZES[@]}"; do
  for cfg in nginx-direct nginx-proxy rangetap rangetap-nobodies mitm; do
    if [[ $cfg == mitm && -n $MITM_REASON ]]; then
      printf '%-5s %-18s not run: %s\n' "$size" "$cfg" "$MITM_REASON"
      continue
    fi
    MED[$cfg,$size]=$(median <<<"${RPS[$cfg,$size]}")
    cpu10k=$(awk -v t="${CPU[$cfg,$size]}" -v h="$HZ" -v n="${REQ[$cfg,$size]}" 'BEGIN { if (n > 0) printf "%.2f", t / h / n * 10000; else print "-" }')
    rounds=$(tr ' ' '\n' <<<"${RPS[$cfg,$size]}" | awk 'NF { printf "%s%.0f", (NR > 1 ? " " : ""), $1 }')
    printf '%-5s %-18s %12s %-44s %10s %10s %8s %8s %s\n' "$size" "$cfg" "${MED[$cfg,$size]}" "$rounds" "$cpu10k" "$(median 2 - <<<"${CORES[$cfg,$size]}")" \
      "${NON2XX[$cfg,$size]}" "${SOCKERR[$cfg,$size]}" "${CAPNOTE[$cfg,$size]:--}"
  done
done
echo "# CPU_s/10k: user+system CPU seconds of that proxy (nginx-direct: the origin) per 10,000 requests, over all rounds"
echo "# cores_busy: median over the rounds of the whole machine's CPU (wrk, nginx, the proxy, all else; /proc/stat) over wrk's wall time, of nproc=$(nproc): below it with work left, requests wait for wake-ups, not for a CPU"
echo "# capture: per rangetap run (in round order), exchanges in the capture minus (wrk requests + 1 curl check); +0..+$CONNS allowed (requests in flight when wrk stops)"
echo
printf '%-58s %-12s %-10s %s\n' target measured target result
for size in "${SIZES[@]}"; do load_targets "$size" "" "$size"; done
bad_non2xx=0 bad_body=0 bad_cap=0
for size in "${SIZES[@]}"; do
  for cfg in "${CONFIGS[@]}"; do
    bad_non2xx=$((bad_non2xx + ${NON2XX[$cfg,$size]:-0}))
    bad_body=$((bad_body + ${BODYBAD[$cfg,$size]:-0}))
    bad_cap=$((bad_cap + ${CAPBAD[$cfg,$size]:-0}))
  done
done
target_row "wrk non-2xx/3xx responses, all runs" "$bad_non2xx" "0" "$([[ $bad_non2xx == 0 ]] && echo 1 || echo 0)"
target_row "curl check after each run: status 200, exact bytes" "$bad_body bad" "0 bad" "$([[ $bad_body == 0 ]] && echo 1 || echo 0)"
target_row "rangetap captures: exchanges = wrk + 1, +0..$CONNS; exit 0" "$bad_cap bad" "0 bad" "$([[ $bad_cap == 0 ]] && echo 1 || echo 0)"
if [[ -n ${BENCH_AB_BASELINE:-} ]]; then
  echo
  echo "# A/B against BENCH_AB_BASELINE=$BENCH_AB_BASELINE (tools/bench-ab.sh)"
  "$SCRIPT_DIR/bench-ab.sh" "$BENCH_AB_BASELINE" "$BIN" || FAILS=$((FAILS + 1))
fi
if ((FAILS)); then
  echo "# $FAILS FAIL"
  exit 1
fi
echo "# all PASS"
