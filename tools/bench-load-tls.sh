#!/usr/bin/env bash
# bench-load-tls.sh — a player's load over HTTPS and HTTP/2 through `rangetap record` intercepting
# CONNECT tunnels (issue 15, "Performance": the player-load rows of tools/bench-load.sh for https
# and h2).
#
# wrk speaks neither TLS through a proxy nor HTTP/2, so the client here is curl (libcurl 7.88):
# `curl --parallel --parallel-max 8 -K LIST` fetches one object BENCH_REQUESTS times over
# keep-alive connections: 8 of them over HTTP/1.1 (scheme https), and 8 streams at a time on one
# connection over HTTP/2 (scheme h2), as players do. requests/s = requests / curl's wall time
# (its start-up, CONNECTs and handshakes included). Every transfer's status, size and HTTP version
# are checked (%{http_code} %{size_download} %{http_version}). A private nginx origin (generated config, free ports on
# 127.0.0.1, a test CA and certificate made by openssl for the run) serves 16 KiB (16k.bin) and
# 512 KiB (512k.bin) of random bytes over TLS: HTTP/1.1 only on one port, `ssl http2` on another.
# Configurations, per scheme:
#   direct             curl against the origin itself (reference, judged against nothing)
#   nginx-proxy        a second nginx as a TLS reverse proxy (listen ssl, http2 for h2):
#                      proxy_pass https:// to an upstream block with keepalive 16, the origin's
#                      certificate verified, sessions reused, proxy_http_version 1.1,
#                      proxy_buffering off (nginx 1.22 speaks HTTP/1.1 to upstreams)
#   rangetap           curl -x rangetap: `record --ca-dir DIR --upstream-cacert ORIGIN_CA`
#                      intercepts each CONNECT (bodies recorded)
#   rangetap-nobodies  the same with --no-bodies
#   mitm               curl -x mitmdump (its regular mode intercepts CONNECT; its CA trusted;
#                      ssl_verify_upstream_trusted_ca=ORIGIN_CA, stream_large_bodies=1)
# A round runs every configuration once per scheme and size, the order rotated by one each round;
# rangetap starts fresh for each run with its own capture; the others run throughout.
# Figures: median requests/s of the rounds; CPU seconds (user + system from /proc/PID/stat, the
# process and its children, summed over the rounds) per 10,000 requests of that proxy (direct:
# the origin); cores busy, the whole machine's CPU over curl's wall time (/proc/stat), median of
# the rounds.
# TARGETS (PASS/FAIL with the ratio of medians), for rangetap and rangetap-nobodies, each scheme
# and size:   >= 0.8 x nginx-proxy        >= 5 x mitm
#   and, without a verdict, nginx-proxy's own rate against mitm's: where it is under 5x, the
#   5x mitm target asks rangetap to be faster than the reverse proxy it is held to
# CORRECTNESS (PASS/FAIL): every transfer of every run got 200 and the object's size; one curl GET
# after each run gets the exact bytes (SHA-256); every rangetap capture holds one complete GET
# exchange per request (`rangetap inspect --json`) and exits 0 after SIGINT.
#
# Usage: tools/bench-load-tls.sh
# Environment:
#   BENCH_QUICK=1        1 round, fewer requests (about a minute and a half)
#   BENCH_ROUNDS (3)     rounds
#   BENCH_REQUESTS_16K (4000), BENCH_REQUESTS_512K (600)   requests per run
#   BENCH_SCHEMES        "https h2" (default) or one of them
#   BENCH_SIZES          "16k 512k" (default) or one of them
#   BENCH_NO_MITM=1      no mitmproxy rows
#   RANGETAP=BIN         use this binary; otherwise the one tools/install.sh builds
#   BENCH_KEEP_TMP=1     keep the temp dir;  BENCH_TMPDIR (/tmp) where it goes
# Packages: nginx-light, curl, openssl with apt-get when missing (as root); mitmproxy with pip into
# tools/.venv (when that fails the mitm rows say "not run: reason").
# The report goes to stdout, progress to stderr. Exit status: 0 all PASS, 1 a FAIL, 2 setup failure.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
. "$SCRIPT_DIR/bench-lib.sh"
. "$SCRIPT_DIR/mitm-venv.sh"
. "$SCRIPT_DIR/origin-certs.sh"
bench_script bench-load-tls

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  ROUNDS=${BENCH_ROUNDS:-1} N16=${BENCH_REQUESTS_16K:-2000} N512=${BENCH_REQUESTS_512K:-300}
else
  ROUNDS=${BENCH_ROUNDS:-3} N16=${BENCH_REQUESTS_16K:-4000} N512=${BENCH_REQUESTS_512K:-600}
fi
read -r -a SCHEMES <<<"${BENCH_SCHEMES:-https h2}"
read -r -a SIZES <<<"${BENCH_SIZES:-16k 512k}"
PARALLEL=8
NO_MITM=${BENCH_NO_MITM:-0}
VENV="$SCRIPT_DIR/.venv"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 20 ]] || die "BENCH_ROUNDS must be 1..20"
for n in "$N16" "$N512"; do [[ $n =~ ^[0-9]+$ && $n -ge 10 && $n -le 100000 ]] || die "BENCH_REQUESTS_*: 10..100000"; done
for s in "${SCHEMES[@]}"; do [[ $s == https || $s == h2 ]] || die "BENCH_SCHEMES: https and/or h2, not '$s'"; done
for s in "${SIZES[@]}"; do [[ $s == 16k || $s == 512k ]] || die "BENCH_SIZES: 16k and/or 512k, not '$s'"; done
((${#SCHEMES[@]} && ${#SIZES[@]})) || die "BENCH_SCHEMES and BENCH_SIZES must name something"
bytes_of() { case $1 in 16k) echo 16384 ;; 512k) echo 524288 ;; esac; }
requests_of() { case $1 in 16k) echo "$N16" ;; 512k) echo "$N512" ;; esac; }

# ---------------------------------------------------------------- packages, binary
need=()
command -v openssl >/dev/null 2>&1 || need+=(openssl)
need_origin_tools "${need[@]}"
nginx_V=$("$NGINX" -V 2>&1)
[[ $nginx_V == *http_ssl_module* && $nginx_V == *http_v2_module* ]] || die "this nginx has no http_ssl_module or http_v2_module"
mitm_prepare "$VENV" "$NO_MITM"
release_binary

mem_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
echo "# bench-load-tls.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)$([[ ${BENCH_QUICK:-0} == 1 ]] && echo "  BENCH_QUICK=1")"
echo "# machine: nproc=$(nproc)  kernel=$(uname -r)  RAM=$(awk -v k="$mem_kib" 'BEGIN { printf "%.1f GiB", k / 1048576 }')  load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# rangetap $("$BIN" --version 2>/dev/null || echo '?') ($BIN, repo at $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'))  nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  $(curl --version | head -n 1 | awk '{ print $1, $2 }')  mitmproxy $([[ -z $MITM_REASON ]] && "$MITMDUMP" --version 2>/dev/null | awk '/^Mitmproxy/ { print $2 }' || echo "not run: $MITM_REASON")"
echo "# load: curl --parallel --parallel-max $PARALLEL, $N16 GETs of 16k / $N512 of 512k per run, $ROUNDS rounds, order rotated each round"

# ---------------------------------------------------------------- temp dir, origin, nginx proxy
T=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/bench-load-tls.XXXXXX")
stop_on_exit
mkdir -p "$T/www"
declare -A SHA
for s in "${SIZES[@]}"; do
  head -c "$(bytes_of "$s")" /dev/urandom >"$T/www/$s.bin"
  SHA[$s]=$(sha256sum "$T/www/$s.bin" | cut -d' ' -f1)
done
chmod a+rx "$T" "$T/www"
chmod a+r "$T/www/"*.bin
origin_certificates "$T/tls" bench-load-tls
ORIGIN_CA=$T/tls/origin-ca.pem
CERT="ssl_certificate $T/tls/server.pem; ssl_certificate_key $T/tls/server.key; ssl_protocols TLSv1.2 TLSv1.3;"
NGINX_MAIN="worker_processes auto;"

PLAIN_PORT=$(free_port) TLS_PORT=$(free_port) H2_PORT=$(free_port)
nginx_conf origin "$PLAIN_PORT" "
  server { listen 127.0.0.1:$TLS_PORT ssl; $CERT root $T/www; }
  server { listen 127.0.0.1:$H2_PORT ssl http2; $CERT root $T/www; }" ""
start_nginx origin "$PLAIN_PORT"
ORIGIN_PID=$NGINX_STARTED_PID
log "nginx origin pid $ORIGIN_PID: 127.0.0.1:$TLS_PORT (TLS, HTTP/1.1), $H2_PORT (TLS, h2)"

# The TLS reverse proxy: one port per scheme, both to the origin's HTTP/1.1 TLS port.
PX_PLAIN=$(free_port) PX_TLS=$(free_port) PX_H2=$(free_port)
PROXY_TO="proxy_pass https://origin_tls; proxy_http_version 1.1; proxy_set_header Connection \"\"; proxy_buffering off; proxy_ssl_server_name on; proxy_ssl_name localhost; proxy_ssl_verify on; proxy_ssl_trusted_certificate $ORIGIN_CA; proxy_ssl_session_reuse on;"
nginx_conf proxy "$PX_PLAIN" "
  upstream origin_tls { server 127.0.0.1:$TLS_PORT; keepalive 16; }
  server { listen 127.0.0.1:$PX_TLS ssl; $CERT location / { $PROXY_TO } }
  server { listen 127.0.0.1:$PX_H2 ssl http2; $CERT location / { $PROXY_TO } }" ""
start_nginx proxy "$PX_PLAIN"
PROXY_PID=$NGINX_STARTED_PID
log "nginx TLS reverse proxy pid $PROXY_PID: 127.0.0.1:$PX_TLS (https), $PX_H2 (h2)"

# ---------------------------------------------------------------- rangetap CA, mitmproxy
"$BIN" ca init --ca-dir "$T/rtca" >"$T/ca-init.log" 2>&1 || { cat "$T/ca-init.log" >&2; die "rangetap ca init failed"; }
MITM_PID="" MITM_PORT=""
if [[ -z $MITM_REASON ]]; then
  MITM_PORT=$(free_port)
  mkdir -p "$T/mitm-conf"
  "$MITMDUMP" -q --listen-host 127.0.0.1 -p "$MITM_PORT" --set stream_large_bodies=1 --set "confdir=$T/mitm-conf" \
    --set "ssl_verify_upstream_trusted_ca=$ORIGIN_CA" >"$T/mitm.log" 2>&1 &
  MITM_PID=$!
  STARTED+=("$MITM_PID")
  if wait_port "$MITM_PORT" && [[ -s $T/mitm-conf/mitmproxy-ca-cert.pem ]]; then
    log "mitmdump pid $MITM_PID on 127.0.0.1:$MITM_PORT"
  else
    MITM_REASON="mitmdump did not start: $(tail -n 1 "$T/mitm.log" 2>/dev/null)"
    stop "$MITM_PID" TERM 5
    MITM_PID=""
  fi
fi
CONFIGS=(direct nginx-proxy rangetap rangetap-nobodies)
[[ -z $MITM_REASON ]] && CONFIGS+=(mitm)

HZ=$(getconf CLK_TCK)

# ---------------------------------------------------------------- one run
declare -A RPS CPU CORES REQ BAD BODYBAD CAPBAD
FAILS=0
run() {  # run SCHEME CONFIG SIZE ROUND
  local scheme=$1 cfg=$2 size=$3 r=$4 n pid="" rt_pid="" port url list="$T/list-$1-$3.cfg" out c0 c1 t0 t1
  n=$(requests_of "$size")
  out="$T/curl-$scheme-$cfg-$size-$r.out"
  port=$([[ $scheme == h2 ]] && echo "$H2_PORT" || echo "$TLS_PORT")
  local args=(-s --max-time 300)
  [[ $scheme == h2 ]] && args+=(--http2) || args+=(--http1.1)
  case $cfg in
    direct) pid=$ORIGIN_PID; args+=(--cacert "$ORIGIN_CA") ;;
    nginx-proxy)
      pid=$PROXY_PID; args+=(--cacert "$ORIGIN_CA")
      port=$([[ $scheme == h2 ]] && echo "$PX_H2" || echo "$PX_TLS") ;;
    mitm) pid=$MITM_PID; args+=(-x "http://127.0.0.1:$MITM_PORT" --cacert "$T/mitm-conf/mitmproxy-ca-cert.pem") ;;
    rangetap | rangetap-nobodies)
      local rport extra=()
      rport=$(free_port)
      [[ $cfg == rangetap-nobodies ]] && extra=(--no-bodies)
      rm -rf "$T/run.rtap"
      "$BIN" record --listen "127.0.0.1:$rport" -o "$T/run.rtap" --ca-dir "$T/rtca" --upstream-cacert "$ORIGIN_CA" "${extra[@]}" >"$T/rangetap-$scheme-$cfg-$size-$r.log" 2>&1 &
      rt_pid=$!
      pid=$rt_pid
      STARTED+=("$rt_pid")
      wait_port "$rport" || { cat "$T/rangetap-$scheme-$cfg-$size-$r.log" >&2; die "rangetap did not start"; }
      args+=(-x "http://127.0.0.1:$rport" --cacert "$T/rtca/rangetap-ca.pem") ;;
  esac
  url="https://127.0.0.1:$port/$size.bin"
  awk -v n="$n" -v u="$url" 'BEGIN { for (i = 0; i < n; i++) printf "url = \"%s\"\noutput = \"/dev/null\"\n", u }' >"$list"
  c0=$(cpu_ticks "$pid")
  local busy0 busy1
  busy0=$(machine_busy_ticks)
  t0=$(date +%s%N)
  curl --parallel --parallel-max "$PARALLEL" "${args[@]}" -w '%{http_code} %{size_download} %{http_version}\n' -K "$list" >"$out" 2>"$out.err" ||
    log "$scheme $cfg $size round $r: curl exited with status $?"
  t1=$(date +%s%N)
  busy1=$(machine_busy_ticks)
  c1=$(cpu_ticks "$pid")
  CORES[$scheme,$cfg,$size]+="$(cores_busy "$busy0" "$busy1" "$t0" "$t1") "
  local good bad rps
  good=$(awk -v b="$(bytes_of "$size")" -v v="$([[ $scheme == h2 ]] && echo 2 || echo 1.1)" '$1 == 200 && $2 == b && $3 == v' "$out" | wc -l)
  bad=$((n - good))
  rps=$(awk -v n="$good" -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", n / (ns / 1e9) }')
  # the exact bytes once through this configuration
  if [[ $(curl "${args[@]}" -o "$T/check.bin" -w '%{http_code}' "$url" 2>/dev/null) != 200 ||
        $(sha256sum "$T/check.bin" | cut -d' ' -f1) != "${SHA[$size]}" ]]; then
    BODYBAD[$scheme,$cfg,$size]=$((${BODYBAD[$scheme,$cfg,$size]:-0} + 1))
    log "$scheme $cfg $size round $r: the check GET did not get the object's bytes"
  fi
  rm -f "$T/check.bin"
  RPS[$scheme,$cfg,$size]+="$rps "
  REQ[$scheme,$cfg,$size]=$((${REQ[$scheme,$cfg,$size]:-0} + good))
  CPU[$scheme,$cfg,$size]=$((${CPU[$scheme,$cfg,$size]:-0} + c1 - c0))
  BAD[$scheme,$cfg,$size]=$((${BAD[$scheme,$cfg,$size]:-0} + bad))
  local note=""
  if [[ -n $rt_pid ]]; then
    stop "$rt_pid" INT 120
    local complete
    complete=$("$BIN" inspect "$T/run.rtap" --json 2>/dev/null | python3 -c '
import json, sys
size = int(sys.argv[1])
ex = json.load(sys.stdin)["exchanges"]
print(sum(1 for e in ex if e.get("method") == "GET" and e.get("outcome") == "complete" and e.get("status") == 200 and e.get("bytesReceived") == size))
' "$(bytes_of "$size")" 2>/dev/null || echo "?")
    # n transfers and the check GET
    if [[ $STOP_RC != 0 || $complete != $((n + 1)) ]]; then
      CAPBAD[$scheme,$cfg,$size]=$((${CAPBAD[$scheme,$cfg,$size]:-0} + 1))
      log "$scheme $cfg $size round $r: capture has $complete complete GETs for $((n + 1)) requests; exit status $STOP_RC"
    fi
    note=" capture=$complete/$((n + 1))"
    rm -rf "$T/run.rtap"
  fi
  log "$(printf '%-6s %-18s %-5s round %d: %8.1f req/s  bad=%s cpu=%.2fs%s' "$scheme" "$cfg" "$size" "$r" "$rps" "$bad" "$(awk -v t=$((c1 - c0)) -v h="$HZ" 'BEGIN { print t / h }')" "$note")"
}

n_cfg=${#CONFIGS[@]}
for ((r = 1; r <= ROUNDS; r++)); do
  order=()
  for ((i = 0; i < n_cfg; i++)); do order+=("${CONFIGS[$(((i + r - 1) % n_cfg))]}"); done
  log "round $r of $ROUNDS: ${order[*]}"
  for scheme in "${SCHEMES[@]}"; do
    for size in "${SIZES[@]}"; do
      for cfg in "${order[@]}"; do run "$scheme" "$cfg" "$size" "$r"; done
    done
  done
done

# ---------------------------------------------------------------- report
declare -A MED
echo "# load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-6s %-5s %-18s %12s %-30s %10s %10s %s\n' scheme size config "median_req/s" "rounds (req/s)" "CPU_s/10k" cores_busy "bad"
for scheme in "${SCHEMES[@]}"; do
  for size in "${SIZES[@]}"; do
    for cfg in direct nginx-proxy rangetap rangetap-nobodies mitm; do
      if [[ $cfg == mitm && -n $MITM_REASON ]]; then
        printf '%-6s %-5s %-18s not run: %s\n' "$scheme" "$size" "$cfg" "$MITM_REASON"
        continue
      fi
      MED[$scheme,$cfg,$size]=$(median <<<"${RPS[$scheme,$cfg,$size]}")
      cpu10k=$(awk -v t="${CPU[$scheme,$cfg,$size]}" -v h="$HZ" -v n="${REQ[$scheme,$cfg,$size]}" 'BEGIN { if (n > 0) printf "%.2f", t / h / n * 10000; else print "-" }')
      rounds=$(tr ' ' '\n' <<<"${RPS[$scheme,$cfg,$size]}" | awk 'NF { printf "%s%.0f", (NR > 1 ? " " : ""), $1 }')
      printf '%-6s %-5s %-18s %12s %-30s %10s %10s %s\n' "$scheme" "$size" "$cfg" "${MED[$scheme,$cfg,$size]}" "$rounds" "$cpu10k" "$(median 2 - <<<"${CORES[$scheme,$cfg,$size]}")" "${BAD[$scheme,$cfg,$size]}"
    done
  done
done
echo "# CPU_s/10k: user+system CPU seconds of that proxy (direct: the origin) per 10,000 requests, over all rounds; bad: transfers without 200, the object's size and the scheme's HTTP version"
echo "# cores_busy: median over the rounds of the whole machine's CPU (curl, nginx, the proxy, all else; /proc/stat) over curl's wall time, of nproc=$(nproc)"
echo
printf '%-58s %-12s %-10s %s\n' target measured target result
bad_all=0 body_all=0 cap_all=0
for scheme in "${SCHEMES[@]}"; do
  for size in "${SIZES[@]}"; do
    load_targets "$scheme $size" "$scheme," "$size"
    for cfg in "${CONFIGS[@]}"; do
      bad_all=$((bad_all + ${BAD[$scheme,$cfg,$size]:-0}))
      body_all=$((body_all + ${BODYBAD[$scheme,$cfg,$size]:-0}))
      cap_all=$((cap_all + ${CAPBAD[$scheme,$cfg,$size]:-0}))
    done
  done
done
target_row "transfers without 200, the size and the HTTP version" "$bad_all" "0" "$([[ $bad_all == 0 ]] && echo 1 || echo 0)"
target_row "check GET after each run: 200, exact bytes" "$body_all bad" "0 bad" "$([[ $body_all == 0 ]] && echo 1 || echo 0)"
target_row "rangetap captures: one complete GET per request; exit 0" "$cap_all bad" "0 bad" "$([[ $cap_all == 0 ]] && echo 1 || echo 0)"
if ((FAILS)); then
  echo "# $FAILS FAIL"
  exit 1
fi
echo "# all PASS"
