#!/usr/bin/env bash
# bench-probe.sh — how long `rangetap probe` takes against a local nginx, as a ratio to a baseline
# measured in the same run: one curl process sending as many requests one after another on a
# kept-alive connection (the least a sequential client can spend on that many round trips).
#
# The probe's requests are counted from nginx's access log of one probe run; each figure is the
# median of 10 runs (wall clock, process start to exit), probe and curl alternating.
# Knobs: RANGETAP=BIN (else the release build), BENCH_RUNS (10), BENCH_KEEP_TMP=1, BENCH_TMPDIR.
# Report on stdout. Exit 0, or 2 when it cannot run.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-probe
RUNS=${BENCH_RUNS:-10}
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 1 && $RUNS -le 100 ]] || die "BENCH_RUNS must be 1..100"
need_origin_tools
release_binary

mkdir -p "$T/www"
head -c $((1 << 20)) /dev/urandom >"$T/www/clip.mp4"
ORIGIN=$(free_port)
nginx_conf origin "$ORIGIN" "types { video/mp4 mp4; }" "access_log $T/access.log;"
start_nginx origin "$ORIGIN"
URL="http://127.0.0.1:$ORIGIN/clip.mp4"
now_ms() { echo $(($(date +%s%N) / 1000000)); }

status=0
"$BIN" probe "$URL" >"$T/probe.txt" || status=$?
sleep 0.2
REQUESTS=$(wc -l <"$T/access.log")
log "one probe sent $REQUESTS requests (exit $status): $(sed -n 2p "$T/probe.txt")"
((status <= 1)) || die "the probe could not run: $(cat "$T/probe.txt")"
curl_args=()
for _ in $(seq "$REQUESTS"); do curl_args+=(-o /dev/null "$URL"); done

probe=() plain=()
for i in $(seq "$RUNS"); do
  t0=$(now_ms)
  timeout 60 "$BIN" probe "$URL" >/dev/null || true
  t1=$(now_ms)
  curl -s --max-time 60 -r 0-1 "${curl_args[@]}" || true
  t2=$(now_ms)
  probe+=($((t1 - t0))) plain+=($((t2 - t1)))
  log "run $i: probe ${probe[-1]} ms, curl ${plain[-1]} ms"
done
P=$(median 0 <<<"${probe[*]}") C=$(median 0 <<<"${plain[*]}")
echo "rangetap probe vs curl, nginx on 127.0.0.1, 1 MiB file, median of $RUNS runs ($BIN)"
printf '%-44s %8s\n' configuration ms "rangetap probe ($REQUESTS requests, all checks)" "$P" "curl, $REQUESTS x bytes=0-1 sequential, keep-alive" "$C"
echo "ratio probe / curl: $(ratio "$P" "$C")"
echo "raw probe ms: ${probe[*]}"
echo "raw curl ms:  ${plain[*]}"
