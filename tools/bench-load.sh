#!/usr/bin/env bash
# bench-load.sh — a player's load through rangetap: many 16 KiB and 512 KiB GETs of one object on
# keep-alive connections, against nginx itself, nginx as a reverse proxy and mitmproxy, in one run.
#
# A private nginx origin (worker_processes auto) serves both objects (random bytes) on 127.0.0.1
# over HTTP and over TLS (a test CA made for the run; HTTP/1.1 only on one port, `http2` on
# another). Per scheme (BENCH_SCHEMES), the client and the rows:
#   http       wrk -t2 -c8 -dDUR (tools/wrk-report.lua prints its totals)
#              direct (the origin), nginx-proxy (a second nginx: proxy_pass to an upstream with
#              keepalive 16, HTTP/1.1, proxy_buffering off), rangetap and rangetap-nobodies
#              (`record --upstream http://ORIGIN`, a reverse proxy), mitm (mitmdump --mode reverse)
#   https, h2  curl --parallel --parallel-max 8 of N GETs (4000 of 16 KiB, 600 of 512 KiB): 8
#              connections of HTTP/1.1, or 8 streams at a time on one HTTP/2 connection
#              direct, nginx-proxy (TLS, `http2` for h2, proxy_pass https:// to the origin's TLS
#              port, certificate verified, sessions reused), rangetap and rangetap-nobodies
#              intercepting CONNECT (`--ca-dir`, `--upstream-cacert`), mitm intercepting
# A round runs each row once per scheme and size, the order rotated by one each round; rangetap
# starts fresh for each run, the others run throughout.
# Figures: median requests/s of the rounds; CPU s per 10,000 requests of that proxy (direct: the
# origin; user + system from /proc, the process and its children, over all rounds); cores the
# whole machine kept busy during the load (median).
# TARGETS (PASS/FAIL, ratio of medians), rangetap and rangetap-nobodies, each scheme and size:
# >= 0.8 x nginx-proxy, >= 5 x mitm; and, no verdict, nginx-proxy against mitm (under 5x, the mitm
# target asks rangetap to beat the reverse proxy it is held to).
# CORRECTNESS (PASS/FAIL): every response 2xx (wrk), or 200 with the object's size and the scheme's
# HTTP version (curl); one GET after each run gets the exact bytes; each rangetap capture holds one
# complete exchange with the object's SHA-256 per request counted and the check GET (wrk may stop
# with one request in flight per connection that rangetap completed: up to 8 more), and rangetap
# exits 0 after SIGINT. mitm rows run when mitmproxy is installed, else say why not.
#
# Knobs: RANGETAP=BIN (else the release build), BENCH_SCHEMES ("http https h2"), BENCH_ROUNDS (5),
# BENCH_DURATION (10 s, wrk), BENCH_QUICK=1 (2 rounds, wrk 3 s, half the curl GETs), BENCH_INSTALL=1
# (mitmproxy into tools/.venv), BENCH_KEEP_TMP=1, BENCH_TMPDIR. Report on stdout, progress on
# stderr. Exit status: 0 all PASS, 1 a FAIL, 2 when it cannot run.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-load

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  ROUNDS=${BENCH_ROUNDS:-2} DUR=${BENCH_DURATION:-3} N16=2000 N512=300
else
  ROUNDS=${BENCH_ROUNDS:-5} DUR=${BENCH_DURATION:-10} N16=4000 N512=600
fi
read -r -a SCHEMES <<<"${BENCH_SCHEMES:-http https h2}"
SIZES=(16k 512k) CONFIGS=(direct nginx-proxy rangetap rangetap-nobodies mitm)
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 20 ]] || die "BENCH_ROUNDS must be 1..20"
[[ $DUR =~ ^[0-9]+$ && $DUR -ge 1 && $DUR -le 120 ]] || die "BENCH_DURATION must be 1..120 seconds"
((${#SCHEMES[@]})) || die "BENCH_SCHEMES is empty"
for s in "${SCHEMES[@]}"; do [[ $s =~ ^(http|https|h2)$ ]] || die "BENCH_SCHEMES: http, https and/or h2, not '$s'"; done
bytes_of() { [[ $1 == 16k ]] && echo 16384 || echo 524288; }

command -v wrk >/dev/null 2>&1 && need=() || need=(wrk)
need_origin_tools "${need[@]}"
release_binary
peer mitmdump
MITM=$PEER MITM_WHY=$PEER_WHY

# ---------------------------------------------------------------- origin, nginx proxy, mitm
mkdir -p "$T/www"
declare -A SHA
for s in "${SIZES[@]}"; do
  head -c "$(bytes_of "$s")" /dev/urandom >"$T/www/$s.bin"
  SHA[$s]=$(sha256sum "$T/www/$s.bin" | cut -d' ' -f1)
done
tls_origin
"$BIN" ca init --ca-dir "$T/rtca" >"$T/ca.log" 2>&1 || die "rangetap ca init failed: $(cat "$T/ca.log")"
NGINX_MAIN="worker_processes auto;"
ORIGIN=$(free_port) TLS=$(free_port) H2=$(free_port)
nginx_conf origin "$ORIGIN" "$(tls_server "$TLS ssl") $(tls_server "$H2 ssl http2")" ""
start_nginx origin "$ORIGIN"
ORIGIN_PID=$NGINX_PID
PX=$(free_port) PX_TLS=$(free_port) PX_H2=$(free_port)
to_tls="proxy_pass https://origin_tls; proxy_http_version 1.1; proxy_set_header Connection \"\"; proxy_buffering off; proxy_ssl_server_name on; proxy_ssl_name localhost; proxy_ssl_verify on; proxy_ssl_trusted_certificate $ORIGIN_CA; proxy_ssl_session_reuse on;"
cert="ssl_certificate $T/tls/server.pem; ssl_certificate_key $T/tls/server.key;"
nginx_conf proxy "$PX" "upstream origin { server 127.0.0.1:$ORIGIN; keepalive 16; }
  upstream origin_tls { server 127.0.0.1:$TLS; keepalive 16; }
  server { listen 127.0.0.1:$PX_TLS ssl; $cert location / { $to_tls } }
  server { listen 127.0.0.1:$PX_H2 ssl http2; $cert location / { $to_tls } }" \
  "proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection \"\"; proxy_buffering off;"
start_nginx proxy "$PX"
PROXY_PID=$NGINX_PID
MITM_PID="" MITM_REV_PID="" MITM_PORT=$(free_port) MITM_REV=$(free_port)
if [[ -n $MITM ]]; then
  # one mitmdump intercepting CONNECT (https, h2), one as a reverse proxy (http)
  if serve "$MITM_PORT" "$T/mitm.log" "$MITM" -q --listen-host 127.0.0.1 -p "$MITM_PORT" --set stream_large_bodies=1 \
    --set "confdir=$T/mitm" --set "ssl_verify_upstream_trusted_ca=$ORIGIN_CA"; then MITM_PID=$SPAWNED; fi
  if serve "$MITM_REV" "$T/mitm-rev.log" "$MITM" -q --mode "reverse:http://127.0.0.1:$ORIGIN" --listen-host 127.0.0.1 \
    -p "$MITM_REV" --set stream_large_bodies=1 --set "confdir=$T/mitm-rev"; then MITM_REV_PID=$SPAWNED; fi
  [[ -n $MITM_PID && -n $MITM_REV_PID ]] || MITM_WHY="mitmdump did not start (see $T/mitm*.log)"
fi
[[ -z $MITM_WHY ]] || CONFIGS=(direct nginx-proxy rangetap rangetap-nobodies)

# ---------------------------------------------------------------- one run
declare -A RPS CPU CORES REQ BAD BODYBAD CAPBAD MED
FAILS=0
run() { # run SCHEME ROW SIZE ROUND
  local scheme=$1 row=$2 size=$3 r=$4 pid="" rt="" url args=() port out="$T/out-$1-$2-$3-$4" c0 c1 b0 b1 w0 w1 req bad rps n slack=0
  case $scheme in
    http) port=$ORIGIN ;;
    https) port=$TLS args=(--http1.1 --cacert "$ORIGIN_CA") ;;
    h2) port=$H2 args=(--http2 --cacert "$ORIGIN_CA") ;;
  esac
  case $row in
    direct) pid=$ORIGIN_PID ;;
    nginx-proxy)
      pid=$PROXY_PID port=$PX
      [[ $scheme == https ]] && port=$PX_TLS
      [[ $scheme == h2 ]] && port=$PX_H2 ;;
    mitm)
      pid=$MITM_PID
      [[ $scheme == http ]] && pid=$MITM_REV_PID port=$MITM_REV || args+=(-x "http://127.0.0.1:$MITM_PORT" --cacert "$T/mitm/mitmproxy-ca-cert.pem") ;;
    rangetap*)
      local extra=(-o "$T/run.rtap")
      rm -rf "$T/run.rtap"
      [[ $row == rangetap-nobodies ]] && extra+=(--no-bodies)
      if [[ $scheme == http ]]; then extra+=(--upstream "http://127.0.0.1:$ORIGIN"); else extra+=(--ca-dir "$T/rtca" --upstream-cacert "$ORIGIN_CA"); fi
      start_record "$BIN" "${extra[@]}"
      pid=$RT_PID rt=$RT_PID
      if [[ $scheme == http ]]; then port=$RT_PORT; else args+=(-x "http://127.0.0.1:$RT_PORT" --cacert "$T/rtca/rangetap-ca.pem"); fi ;;
  esac
  url="$([[ $scheme == http ]] && echo http || echo https)://127.0.0.1:$port/$size.bin"
  c0=$(cpu_ticks "$pid") b0=$(machine_busy_ticks) w0=$(date +%s%N)
  if [[ $scheme == http ]]; then
    timeout $((DUR + 60)) wrk -t2 -c8 -d"${DUR}s" -s "$BENCH_TOOLS/wrk-report.lua" "$url" >"$out" 2>&1 || log "$row $size round $r: wrk exited with status $?"
    w1=$(date +%s%N)
    req=$(val "$out" requests) bad=$(val "$out" non2xx) rps=$(val "$out" rps) slack=8
    [[ -n $req && -n $rps ]] || { log "$row $size round $r: no figures from wrk: $(tail -n 3 "$out")"; req=0 bad=1 rps=0; }
  else
    n=$N16
    [[ $size == 512k ]] && n=$N512
    awk -v n="$n" -v u="$url" 'BEGIN { for (i = 0; i < n; i++) printf "url = \"%s\"\noutput = \"/dev/null\"\n", u }' >"$T/list"
    curl --parallel --parallel-max 8 -s --max-time 300 "${args[@]}" -w '%{http_code} %{size_download} %{http_version}\n' -K "$T/list" >"$out" 2>"$out.err" ||
      log "$scheme $row $size round $r: curl exited with status $?"
    w1=$(date +%s%N)
    req=$(awk -v b="$(bytes_of "$size")" -v v="$([[ $scheme == h2 ]] && echo 2 || echo 1.1)" '$1 == 200 && $2 == b && $3 == v' "$out" | wc -l)
    bad=$((n - req))
    rps=$(awk -v n="$req" -v ns=$((w1 - w0)) 'BEGIN { printf "%.1f", n / (ns / 1e9) }')
  fi
  c1=$(cpu_ticks "$pid") b1=$(machine_busy_ticks)
  CORES[$scheme,$row,$size]+="$(cores_busy "$b0" "$b1" "$w0" "$w1") "
  RPS[$scheme,$row,$size]+="$rps "
  REQ[$scheme,$row,$size]=$((${REQ[$scheme,$row,$size]:-0} + req))
  CPU[$scheme,$row,$size]=$((${CPU[$scheme,$row,$size]:-0} + c1 - c0))
  BAD[$scheme,$row,$size]=$((${BAD[$scheme,$row,$size]:-0} + bad))
  if [[ $(curl -s --max-time 30 "${args[@]}" -o "$T/check.bin" -w '%{http_code}' "$url" 2>/dev/null) != 200 ||
    $(sha256sum "$T/check.bin" | cut -d' ' -f1) != "${SHA[$size]}" ]]; then
    BODYBAD[$scheme,$row,$size]=$((${BODYBAD[$scheme,$row,$size]:-0} + 1))
    log "$scheme $row $size round $r: the check GET did not get the object's bytes"
  fi
  local note=""
  if [[ -n $rt ]]; then
    stop "$rt" INT 120
    local got
    got=$(complete_gets "$T/run.rtap" "${SHA[$size]}")
    if [[ $STOP_RC != 0 ]] || ((got < req + 1 || got > req + 1 + slack)); then
      CAPBAD[$scheme,$row,$size]=$((${CAPBAD[$scheme,$row,$size]:-0} + 1))
      log "$scheme $row $size round $r: the capture has $got complete exchanges for $req requests + 1; exit status $STOP_RC"
    fi
    note=" capture=$got/$((req + 1))"
    rm -rf "$T/run.rtap"
  fi
  log "$(printf '%-5s %-17s %-4s round %d: %8.1f req/s  bad=%s cpu=%.2fs%s' "$scheme" "$row" "$size" "$r" "$rps" "$bad" "$(awk -v t=$((c1 - c0)) -v h="$HZ" 'BEGIN { print t / h }')" "$note")"
}

for ((r = 1; r <= ROUNDS; r++)); do
  order=()
  for ((i = 0; i < ${#CONFIGS[@]}; i++)); do order+=("${CONFIGS[(i + r - 1) % ${#CONFIGS[@]}]}"); done
  log "round $r of $ROUNDS: ${order[*]}"
  for scheme in "${SCHEMES[@]}"; do
    for size in "${SIZES[@]}"; do
      for row in "${order[@]}"; do run "$scheme" "$row" "$size" "$r"; done
    done
  done
done

# ---------------------------------------------------------------- report
# target_row NAME MEASURED TARGET VERDICT: 1 PASS, 0 FAIL (counted), else printed as it is.
target_row() {
  local verdict=$4
  case $4 in 1) verdict=PASS ;; 0) verdict=FAIL FAILS=$((FAILS + 1)) ;; esac
  printf '%-58s %-12s %-10s %s\n' "$1" "$2" "$3" "$verdict"
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "-" && a + 0 >= b) ? 1 : 0 }'; }
echo "# bench-load $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# rangetap $BIN (repo $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'))  nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  $(wrk -v 2>&1 | head -n 1 | awk '{ print $1, $2 }')  $(curl --version | awk 'NR == 1 { print $1, $2 }')  mitmproxy: ${MITM_WHY:-$("$MITM" --version 2>/dev/null | awk '/^Mitmproxy/ { print $2 }')}"
echo "# http: wrk -t2 -c8 -d${DUR}s; https, h2: curl --parallel-max 8, $N16 GETs of 16k, $N512 of 512k; $ROUNDS rounds, order rotated each round"
echo
printf '%-6s %-5s %-18s %12s %-40s %10s %10s %s\n' scheme size row "median_req/s" "rounds (req/s)" "CPU_s/10k" cores_busy bad
for scheme in "${SCHEMES[@]}"; do
  for size in "${SIZES[@]}"; do
    for row in "${CONFIGS[@]}"; do
      k=$scheme,$row,$size
      MED[$k]=$(median <<<"${RPS[$k]}")
      printf '%-6s %-5s %-18s %12s %-40s %10s %10s %s\n' "$scheme" "$size" "$row" "${MED[$k]}" "$(awk '{ for (i = 1; i <= NF; i++) printf "%s%.0f", (i > 1 ? " " : ""), $i }' <<<"${RPS[$k]}")" \
        "$(awk -v t="${CPU[$k]}" -v h="$HZ" -v n="${REQ[$k]}" 'BEGIN { if (n > 0) printf "%.2f", t / h / n * 10000; else print "-" }')" \
        "$(median 2 - <<<"${CORES[$k]}")" "${BAD[$k]}"
    done
  done
done
[[ -z $MITM_WHY ]] || echo "# mitm not run: $MITM_WHY"
echo "# CPU_s/10k: that proxy's CPU seconds (direct: the origin's) per 10,000 requests; cores_busy: the whole machine's CPU over the load's wall time, of $(nproc); bad: responses not 2xx (wrk), or not 200 with the object's size and HTTP version (curl)"
echo
printf '%-58s %-12s %-10s %s\n' target measured target result
for scheme in "${SCHEMES[@]}"; do
  for size in "${SIZES[@]}"; do
    for row in rangetap rangetap-nobodies; do
      x=$(ratio "${MED[$scheme,$row,$size]}" "${MED[$scheme,nginx-proxy,$size]}")
      target_row "$scheme $size $row / nginx-proxy" "${x}x" ">= 0.8x" "$(ge "$x" 0.8)"
      if [[ -n $MITM_WHY ]]; then
        target_row "$scheme $size $row / mitm" "-" ">= 5x" "not run"
      else
        x=$(ratio "${MED[$scheme,$row,$size]}" "${MED[$scheme,mitm,$size]}")
        target_row "$scheme $size $row / mitm" "${x}x" ">= 5x" "$(ge "$x" 5)"
      fi
    done
    [[ -n $MITM_WHY ]] || target_row "$scheme $size nginx-proxy / mitm (the reverse proxy itself)" \
      "$(ratio "${MED[$scheme,nginx-proxy,$size]}" "${MED[$scheme,mitm,$size]}")x" "info" "-"
  done
done
bad=0 body=0 cap=0
for k in "${!BAD[@]}"; do bad=$((bad + BAD[$k])); done
for k in "${!BODYBAD[@]}"; do body=$((body + BODYBAD[$k])); done
for k in "${!CAPBAD[@]}"; do cap=$((cap + CAPBAD[$k])); done
target_row "bad responses, all runs" "$bad" "0" "$((bad == 0))"
target_row "check GET after each run: 200, exact bytes" "$body bad" "0 bad" "$((body == 0))"
target_row "rangetap captures: a complete exchange per request; exit 0" "$cap bad" "0 bad" "$((cap == 0))"
((FAILS == 0)) || { echo "# $FAILS FAIL"; exit 1; }
echo "# all PASS"
