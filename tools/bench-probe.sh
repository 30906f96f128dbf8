#!/usr/bin/env bash
# bench-probe.sh — how long `rangetap probe` takes against a local nginx, as a ratio to a
# baseline measured in the same run on the same machine: one curl process sending the same
# number of requests one after another on a kept-alive connection (the least a sequential
# client can spend on that many round trips).
#
# The probe's requests are counted from nginx's access log of one probe run; each figure is
# the median of BENCH_RUNS runs (wall clock, process start to exit). Target (issue 4): a full
# probe of a loopback server finishes in under 2 s.
#
# Usage:
#   tools/bench-probe.sh
# Environment:
#   BENCH_RUNS (10)        runs per figure
#   BENCH_SIZE_KB (1024)   size of the probed file
#   RANGETAP               rangetap binary (default <repo>/.build/debug/rangetap; built with
#                          `swift build --product rangetap` if missing and RANGETAP is unset)
# Progress goes to stderr; the report goes to stdout. Exit 1 when the target is missed.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
RUNS=${BENCH_RUNS:-10}
SIZE_KB=${BENCH_SIZE_KB:-1024}
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 1 && $RUNS -le 100 ]] || { echo "BENCH_RUNS must be 1..100" >&2; exit 2; }
[[ $SIZE_KB =~ ^[0-9]+$ && $SIZE_KB -ge 1 ]] || { echo "BENCH_SIZE_KB must be a positive integer" >&2; exit 2; }
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

log() { printf '[bench-probe %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $NGINX ]] || { log "nginx is missing: apt-get install -y nginx-light"; exit 2; }
command -v curl >/dev/null || { log "curl is missing: apt-get install -y curl"; exit 2; }

RANGETAP_BIN=${RANGETAP:-$REPO_DIR/.build/debug/rangetap}
if [[ ! -x $RANGETAP_BIN ]]; then
  [[ -z ${RANGETAP:-} ]] || { log "RANGETAP=$RANGETAP is not executable"; exit 2; }
  log "building rangetap"
  (cd "$REPO_DIR" && swift build --product rangetap >&2)
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-probe.XXXXXX")
NGINX_PID=
cleanup() {
  [[ -n $NGINX_PID ]] && kill "$NGINX_PID" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/root" "$TMP/tmp"
head -c $((SIZE_KB * 1024)) /dev/urandom > "$TMP/root/clip.mp4"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$TMP/nginx.conf" <<CONF
daemon off;
master_process off;
pid $TMP/nginx.pid;
error_log $TMP/error.log;
events { worker_connections 1024; }
http {
  access_log $TMP/access.log;
  client_body_temp_path $TMP/tmp; proxy_temp_path $TMP/tmp; fastcgi_temp_path $TMP/tmp; uwsgi_temp_path $TMP/tmp; scgi_temp_path $TMP/tmp;
  types { video/mp4 mp4; }
  server { listen 127.0.0.1:$PORT; root $TMP/root; }
}
CONF
"$NGINX" -c "$TMP/nginx.conf" -p "$TMP" -e "$TMP/error.log" &
NGINX_PID=$!
URL="http://127.0.0.1:$PORT/clip.mp4"
for _ in $(seq 1 100); do curl -s -o /dev/null "$URL" && break; sleep 0.05; done

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Requests of one probe, from the access log.
: > "$TMP/access.log"
before=$(wc -l < "$TMP/access.log")
status=0
"$RANGETAP_BIN" probe "$URL" > "$TMP/probe.txt" || status=$?
sleep 0.2
after=$(wc -l < "$TMP/access.log")
REQUESTS=$((after - before))
log "one probe sent $REQUESTS requests (exit $status): $(sed -n 2p "$TMP/probe.txt")"
[[ $status -le 1 ]] || { log "the probe could not run"; cat "$TMP/probe.txt" >&2; exit 1; }

curl_args=()
for _ in $(seq 1 "$REQUESTS"); do curl_args+=(-o /dev/null "$URL"); done

probe_times=()
curl_times=()
for i in $(seq 1 "$RUNS"); do
  t0=$(now_ms); "$RANGETAP_BIN" probe "$URL" > /dev/null || true; t1=$(now_ms)
  probe_times+=($((t1 - t0)))
  t0=$(now_ms); curl -s -r 0-1 "${curl_args[@]}"; t1=$(now_ms)
  curl_times+=($((t1 - t0)))
  log "run $i: probe $((probe_times[-1])) ms, curl $((curl_times[-1])) ms"
done

PROBE_MS=$(printf '%s\n' "${probe_times[@]}" | median)
CURL_MS=$(printf '%s\n' "${curl_times[@]}" | median)
RATIO=$(awk -v a="$PROBE_MS" -v b="$CURL_MS" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')

echo "rangetap probe vs curl, nginx on 127.0.0.1, ${SIZE_KB} KiB file, median of $RUNS runs"
printf '%-44s %8s\n' "configuration" "ms"
printf '%-44s %8s\n' "rangetap probe ($REQUESTS requests, all checks)" "$PROBE_MS"
printf '%-44s %8s\n' "curl, $REQUESTS x bytes=0-1 sequential, keep-alive" "$CURL_MS"
echo "ratio probe / curl: $RATIO"
echo "raw probe ms: ${probe_times[*]}"
echo "raw curl ms:  ${curl_times[*]}"
if (( PROBE_MS < 2000 )); then
  echo "target: full probe under 2000 ms: PASS ($PROBE_MS ms)"
else
  echo "target: full probe under 2000 ms: FAIL ($PROBE_MS ms)"
  exit 1
fi
