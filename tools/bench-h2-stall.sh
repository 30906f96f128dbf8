#!/usr/bin/env bash
# bench-h2-stall.sh — what clients that stop reading cost rangetap's memory, HTTP/2 against
# HTTP/1.1 (docs/http2.md, "Back-pressure and memory").
#
#   tools/bench-h2-stall.sh [RANGETAP_BIN]
#
# A private nginx (one worker) serves a 256 MiB file on 127.0.0.1 over TLS, on one port with
# `http2` (ALPN h2) and on another HTTP/1.1 only, with a self-signed certificate for localhost
# (rangetap runs with `--insecure`). For each case a fresh `rangetap record --no-bodies` with its
# own CA intercepts the client's CONNECT; the clients fetch ranges of 200 MB that they never read:
#   h2 N      Tests/Clients/h2_range_client.py --stall-all: N streams on one HTTP/2 connection,
#             only the connection window granted back, held BENCH_STALL seconds, then reset
#             (rangetap's default: an upstream connection per stream), then the same with
#             `record --upstream-multiplex` (the streams share one upstream connection)
#   http1 N   N curl processes (HTTP/1.1, `--limit-rate 1k`), each its own connection, for
#             BENCH_STALL seconds
# Printed per case: rangetap's VmHWM above its idle RSS (after one warm-up GET), the same per
# stream or connection, and the body bytes its exchanges took from libcurl (the capture's chunk
# events). With streams multiplexed upstream the difference is what libcurl 7.88 holds for
# paused streams.
#
# Knobs: BENCH_STREAMS ("1 5 10"), BENCH_STALL (6) seconds, RANGETAP (or the argument; otherwise
# the release build of tools/release-build.sh), BENCH_KEEP_TMP=1. Needs nginx, curl, openssl,
# python3 with the h2 package (installed when missing, as root). Stops only the processes it
# started. Exit status 0, or 2 when it cannot run.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
. "$SCRIPT_DIR/bench-lib.sh"
bench_script bench-h2-stall

(($# <= 1)) || die "usage: tools/bench-h2-stall.sh [RANGETAP_BIN]"
[[ $# == 1 ]] && RANGETAP=$1
STREAMS=(${BENCH_STREAMS:-1 5 10})
STALL=${BENCH_STALL:-6}
for n in "${STREAMS[@]}"; do [[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 100 ]] || die "BENCH_STREAMS: 1..100 each, not '$n'"; done
[[ $STALL =~ ^[0-9]+$ && $STALL -ge 1 && $STALL -le 60 ]] || die "BENCH_STALL must be 1..60 seconds"

h2_bench_setup h2-stall
H1=$(free_port)
H2=$(free_port)
tls() { printf 'server { listen 127.0.0.1:%s ssl%s; ssl_certificate %s; ssl_certificate_key %s; root %s; }' "$1" "$2" "$T/cert.pem" "$T/key.pem" "$T/www"; }
PLAIN=$(free_port)
nginx_conf origin "$PLAIN" "$(tls "$H1" "") $(tls "$H2" " http2")" ""
start_nginx origin "$PLAIN"
wait_port "$H1" && wait_port "$H2" || die "nginx's TLS ports did not open"

# rss PID / hwm PID: MiB
rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$1/status"; }
hwm() { awk '/^VmHWM/ { print int($2 / 1024) }' "/proc/$1/status"; }

# run KIND N: one case; prints a table row.
run() {
  local kind=$1 n=$2 port pid idle peak taken ranges port_origin i clients=() chunk=5000000
  port=$(free_port)
  rm -rf "$T/cap.rtap"
  local mux=(); [[ $kind == h2mux ]] && mux=(--upstream-multiplex)
  "$BIN" record --listen "127.0.0.1:$port" -o "$T/cap.rtap" --no-bodies --ca-dir "$T/ca" --insecure "${mux[@]}" >"$T/record.log" 2>&1 &
  pid=$!
  STARTED+=("$pid")
  wait_port "$port" || die "rangetap did not start: $(cat "$T/record.log")"
  port_origin=$H1; [[ $kind == h2* ]] && port_origin=$H2
  [[ $(curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$port" --cacert "$T/ca/rangetap-ca.pem" -r 0-1023 "https://localhost:$port_origin/big.bin") == 206 ]] ||
    die "warm-up GET through rangetap did not get 206"
  idle=$(rss "$pid")
  if [[ $kind == h2* ]]; then
    ranges=$(python3 -c "import sys; n=int(sys.argv[1]); print(','.join('%d-%d' % (i*$chunk, i*$chunk+200000000-1) for i in range(n)))" "$n")
    python3 "$REPO_DIR/Tests/Clients/h2_range_client.py" --proxy "127.0.0.1:$port" --connect "localhost:$H2" \
      --cafile "$T/ca/rangetap-ca.pem" --authority "localhost:$H2" --path /big.bin --ranges "$ranges" \
      --stall-all "$STALL" --timeout $((STALL + 30)) >"$T/client.out" 2>&1 || die "the HTTP/2 client failed: $(tail -3 "$T/client.out")"
    grep -q '"alpn": "h2"' "$T/client.out" || die "the client did not get h2: $(head -c 300 "$T/client.out")"
  else
    for ((i = 0; i < n; i++)); do
      curl -s -o /dev/null --http1.1 --limit-rate 1k --max-time "$STALL" -x "http://127.0.0.1:$port" \
        --cacert "$T/ca/rangetap-ca.pem" -r "$((i * chunk))-$((i * chunk + 200000000 - 1))" "https://localhost:$H1/big.bin" &
      clients+=($!)
    done
    wait "${clients[@]}" || true
  fi
  peak=$(hwm "$pid")
  stop "$pid" INT 30
  taken=$(awk '/"type":"chunk"/ { if (match($0, /"size":[0-9]+/)) s += substr($0, RSTART + 7, RLENGTH - 7) } END { printf "%.1f", s / 1048576 }' "$T/cap.rtap/events.jsonl")
  local label="HTTP/1.1: $n connections"
  [[ $kind == h2 ]] && label="HTTP/2: $n streams, one connection"
  [[ $kind == h2mux ]] && label="  the same, --upstream-multiplex"
  printf '  %-36s %6s %8s %8s %13s %10s\n' "$label" \
    "$idle" "$peak" "+$((peak - idle))" "$(awk -v d=$((peak - idle)) -v n="$n" 'BEGIN { printf "%.1f", d / n }')" "$taken"
}

echo "# bench-h2-stall: clients that read nothing for ${STALL} s, 200 MB ranges of a 256 MiB file over TLS, rangetap record --no-bodies; $(nproc) cores, $(uname -r), $(curl --version | head -1 | grep -o 'libcurl/[^ ]*') (the system's, which rangetap links)"
printf '  %-36s %6s %8s %8s %13s %10s\n' "case (MiB)" "idle" "VmHWM" "above" "per each" "taken"
for n in "${STREAMS[@]}"; do
  log "HTTP/2, $n stalled streams"
  run h2 "$n"
  log "HTTP/2, $n stalled streams, --upstream-multiplex"
  run h2mux "$n"
  log "HTTP/1.1, $n stalled connections"
  run http1 "$n"
done
