#!/usr/bin/env bash
# bench-memory.sh — how much memory rangetap holds for clients that never read and for uploads
# that never end (docs/http2.md, "Back-pressure and memory").
#
#   tools/bench-memory.sh [RANGETAP_BIN]
#
# A private nginx (one worker) serves a 256 MiB file on 127.0.0.1, over TLS with `http2` (ALPN h2,
# a self-signed certificate for localhost: rangetap runs with `--insecure`) and over plain HTTP;
# Tests/Origins/sink_origin.py reads request bodies and throws them away, counting them. Each case
# runs against a fresh `rangetap record --no-bodies` with its own CA:
#   h2         BENCH_STREAMS streams of 200 MB ranges, Tests/Clients/h2_zero_window.py through
#              CONNECT + TLS (ALPN h2), at most 100 streams a connection (what rangetap announces),
#              one client process per connection, all at once; no WINDOW_UPDATE ever goes back
#              (stream or connection); all held BENCH_STALL seconds once every stream has its head
#   h2c        the same over h2c with prior knowledge straight to rangetap, to nginx's plain port
#   upload-h1  BENCH_UPLOADS curl processes, each a chunked POST of /dev/zero (`-T -`) through
#              rangetap (`-x`) to the sink, for at most BENCH_STALL seconds
#   upload-h2  BENCH_UPLOADS streams of Tests/Clients/h2_upload_flood.py (h2c, 5 a connection),
#              DATA as fast as the windows allow, to the sink, for BENCH_STALL seconds
# Printed per case: rangetap's RSS once idle (after one warm-up GET), its VmHWM, the difference,
# that per stream or upload, PASS when VmHWM is at most BENCH_LIMIT_MB, the body bytes its
# exchanges took from libcurl (the capture's chunk events), what the clients sent and what the
# sink received (uploads), and what shows the case ran: the heads the streams got, the statuses,
# rangetap's error events. A case that did not run as said (a stream without its 206, no ALPN
# h2, under 1 MiB sent per upload, a client that failed) is INVALID.
#
# Knobs: BENCH_CASES ("h2 h2c upload-h1 upload-h2"), BENCH_STREAMS (500), BENCH_UPLOADS (10),
# BENCH_STALL (8) seconds, BENCH_LIMIT_MB (128), BENCH_STRICT=1, BENCH_RECORD_ARGS (more
# arguments for `rangetap record`, e.g. "--body-memory 32m"), RANGETAP (or the argument;
# otherwise the release build of tools/release-build.sh), BENCH_KEEP_TMP=1. Needs nginx, curl,
# openssl, python3 with the h2 package (installed when missing, as root). Stops only the processes
# it started. Exit status 0 when it ran (FAIL and INVALID rows included), 1 with BENCH_STRICT=1
# and any of them, 2 when it cannot run.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
# shellcheck source=tools/bench-lib.sh
. "$SCRIPT_DIR/bench-lib.sh"
bench_script bench-memory

(($# <= 1)) || die "usage: tools/bench-memory.sh [RANGETAP_BIN]"
[[ $# == 1 ]] && RANGETAP=$1
read -r -a CASES <<<"${BENCH_CASES:-h2 h2c upload-h1 upload-h2}"
read -r -a EXTRA <<<"${BENCH_RECORD_ARGS:-}"
STREAMS=${BENCH_STREAMS:-500} UPLOADS=${BENCH_UPLOADS:-10} STALL=${BENCH_STALL:-8} LIMIT=${BENCH_LIMIT_MB:-128}
for c in "${CASES[@]}"; do [[ $c =~ ^(h2|h2c|upload-h1|upload-h2)$ ]] || die "BENCH_CASES: h2 h2c upload-h1 upload-h2, not '$c'"; done
[[ $STREAMS =~ ^[0-9]+$ && $STREAMS -ge 1 && $STREAMS -le 1000 ]] || die "BENCH_STREAMS must be 1..1000"
[[ $UPLOADS =~ ^[0-9]+$ && $UPLOADS -ge 1 && $UPLOADS -le 100 ]] || die "BENCH_UPLOADS must be 1..100"
[[ $STALL =~ ^[0-9]+$ && $STALL -ge 1 && $STALL -le 60 ]] || die "BENCH_STALL must be 1..60 seconds"
[[ $LIMIT =~ ^[0-9]+$ && $LIMIT -ge 1 ]] || die "BENCH_LIMIT_MB must be a number of MiB"

h2_bench_setup memory
H2=$(free_port) PLAIN=$(free_port) SINK=$(free_port)
nginx_conf origin "$PLAIN" "server { listen 127.0.0.1:$H2 ssl http2; ssl_certificate $T/cert.pem; ssl_certificate_key $T/key.pem; root $T/www; }" ""
start_nginx origin "$PLAIN"
wait_port "$H2" || die "nginx's TLS port did not open"
python3 "$REPO_DIR/Tests/Origins/sink_origin.py" --port "$SINK" --total "$T/sink.total" >"$T/sink.log" 2>&1 &
STARTED+=($!)
wait_port "$SINK" || die "the sink origin did not start: $(cat "$T/sink.log")"

rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$1/status"; }
hwm() { awk '/^VmHWM/ { print int($2 / 1024) }' "/proc/$1/status"; }
mib() { awk -v b="${1:-0}" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# reap SECONDS PID...: waits until the PIDs have exited, at most SECONDS, then stops what is left.
reap() {
  local end=$((SECONDS + $1)) p
  shift
  for p in "$@"; do
    while kill -0 "$p" 2>/dev/null && [[ $(ps -o stat= -p "$p" 2>/dev/null) != Z* ]] && ((SECONDS < end)); do sleep 0.2; done
    stop "$p" TERM 5
  done
}
# ready: how many zero-window clients have their heads (their --ready files).
ready() { local f c=0; for f in "$T"/ready.*; do [[ -e $f ]] && c=$((c + 1)); done; echo "$c"; }
# summary FILE...: the clients' JSON outputs summed: streams heads bytes sent statuses alpn broken.
summary() {
  python3 - "$@" <<'PY'
import json, sys
tot = {"streams": 0, "heads": 0, "bytes": 0, "sent": 0}; st = {}; alpn = set(); broken = 0
for f in sys.argv[1:]:
    try: o = json.loads(open(f).read().strip().splitlines()[-1])
    except Exception: broken += 1; continue
    for k in tot: tot[k] += o.get(k, 0)
    for k, v in o.get("statuses", {}).items(): st[k] = st.get(k, 0) + v
    if "alpn" in o: alpn.add(str(o["alpn"]))
print(*tot.values(), ",".join("%sx%d" % kv for kv in sorted(st.items())) or "none", ",".join(sorted(alpn)) or "-", broken)
PY
}

FAILS=0
# run CASE: one case against a fresh rangetap; prints a table row.
run() {
  local kind=$1 port pid idle peak taken errors n i pids=() outs=() sink0 sink1 sent=- got=- check ok=1
  port=$(free_port)
  rm -rf "$T/cap.rtap" "$T"/out.* "$T"/ready.* "$T/release"
  "$BIN" record --listen "127.0.0.1:$port" -o "$T/cap.rtap" --no-bodies --ca-dir "$T/ca" --insecure "${EXTRA[@]}" >"$T/record.log" 2>&1 &
  pid=$!
  STARTED+=("$pid")
  wait_port "$port" || die "rangetap did not start: $(cat "$T/record.log")"
  if [[ $kind == h2 ]]; then
    [[ $(curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$port" --cacert "$T/ca/rangetap-ca.pem" -r 0-1023 "https://localhost:$H2/big.bin") == 206 ]]
  else
    [[ $(curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$port" -r 0-1023 "http://127.0.0.1:$PLAIN/big.bin") == 206 ]]
  fi || die "warm-up GET through rangetap did not get 206: $(tail -3 "$T/record.log")"
  idle=$(rss "$pid")
  sink0=$(cat "$T/sink.total")
  case $kind in
    h2 | h2c)
      n=$STREAMS
      local tls=(--authority "127.0.0.1:$PLAIN")
      [[ $kind == h2 ]] && tls=(--connect "localhost:$H2" --cafile "$T/ca/rangetap-ca.pem" --authority "localhost:$H2")
      for ((i = 0; i * 100 < n; i++)); do
        python3 "$REPO_DIR/Tests/Clients/h2_zero_window.py" --proxy "127.0.0.1:$port" "${tls[@]}" --path /big.bin \
          --streams $((n - i * 100 < 100 ? n - i * 100 : 100)) --first $((i * 100 * 65536)) --step 65536 \
          --length 200000000 --timeout 30 --ready "$T/ready.$i" --release "$T/release" --hold $((STALL + 60)) >"$T/out.$i" 2>&1 &
        pids+=($!) outs+=("$T/out.$i")
        STARTED+=($!)
      done
      # Each client holds once its streams have their heads; all of them then hold BENCH_STALL s.
      local t0=$SECONDS
      while (($(ready) < ${#pids[@]} && SECONDS < t0 + 40)); do sleep 0.2; done
      log "$(ready) of ${#pids[@]} clients have their heads after $((SECONDS - t0)) s; holding ${STALL} s"
      sleep "$STALL"
      touch "$T/release"
      reap 20 "${pids[@]}"
      ;;
    upload-h1)
      n=$UPLOADS
      for ((i = 0; i < n; i++)); do
        curl -s -o /dev/null -w '{"sent": %{size_upload}, "statuses": {"%{http_code}": 1}}\n' --max-time "$STALL" \
          -x "http://127.0.0.1:$port" -X POST -T - -H 'Transfer-Encoding: chunked' "http://127.0.0.1:$SINK/up" </dev/zero >"$T/out.$i" 2>&1 &
        pids+=($!) outs+=("$T/out.$i")
        STARTED+=($!)
      done
      reap $((STALL + 10)) "${pids[@]}"
      ;;
    upload-h2)
      n=$UPLOADS
      for ((i = 0; i * 5 < n; i++)); do
        python3 "$REPO_DIR/Tests/Clients/h2_upload_flood.py" --proxy "127.0.0.1:$port" --authority "127.0.0.1:$SINK" \
          --path /up --streams $((n - i * 5 < 5 ? n - i * 5 : 5)) --seconds "$STALL" >"$T/out.$i" 2>&1 &
        pids+=($!) outs+=("$T/out.$i")
        STARTED+=($!)
      done
      reap $((STALL + 20)) "${pids[@]}"
      ;;
  esac
  peak=$(hwm "$pid")
  stop "$pid" INT 30
  sleep 0.5 # the sink's total is rewritten every 0.2 s
  sink1=$(cat "$T/sink.total")
  taken=$(awk '/"type":"chunk"/ { if (match($0, /"size":[0-9]+/)) s += substr($0, RSTART + 7, RLENGTH - 7) } END { print s + 0 }' "$T/cap.rtap/events.jsonl")
  errors=$(grep -c '"type":"error"' "$T/cap.rtap/events.jsonl" || true)
  local streams heads bytes up statuses alpn broken
  read -r streams heads bytes up statuses alpn broken <<<"$(summary "${outs[@]}")"
  if [[ $kind == h2* ]]; then
    check="heads $heads/$n ($statuses), $([[ $kind == h2 ]] && echo "alpn $alpn" || echo "h2c"), read $(mib "$bytes") MiB"
    [[ $streams == "$n" && $statuses == "206x$n" ]] || ok=0
    [[ $kind == h2c || $alpn == h2 ]] || ok=0
  else
    sent=$(mib "$up") got=$(mib $((sink1 - sink0)))
    check="statuses $statuses"
    ((up >= n << 20)) || ok=0
  fi
  ((broken == 0)) || { ok=0; check+=", $broken client(s) failed: $(tail -qn1 "${outs[@]}" | grep -v '^{' | head -1)"; }
  check+=", rangetap errors $errors"
  local verdict=PASS
  ((peak <= LIMIT)) || verdict=FAIL
  ((ok)) || verdict=INVALID
  ((ok && errors == 0)) || [[ $kind == upload* && $errors == "$n" ]] ||
    log "$kind: $verdict, rangetap's errors: $(grep -m3 ERROR "$T/record.log" || tail -3 "$T/record.log")"
  [[ $verdict == PASS ]] || FAILS=$((FAILS + 1))
  printf '  %-22s %6s %7s %7s %8s %-8s %8s %8s %8s  %s\n' "$kind $([[ $kind == h2* ]] && echo zero-window || echo endless)" \
    "$idle" "$peak" "+$((peak - idle))" "$(awk -v d=$((peak - idle)) -v n="$n" 'BEGIN { printf "%.2f", d / n }')" \
    "$verdict" "$(mib "$taken")" "$sent" "$got" "$check"
}

echo "# bench-memory: $STREAMS zero-window streams (200 MB ranges of a 256 MiB file), $UPLOADS endless uploads, ${STALL} s each, rangetap record --no-bodies ($BIN); VmHWM limit $LIMIT MiB; $(nproc) cores, $(uname -r)"
printf '  %-22s %6s %7s %7s %8s %-8s %8s %8s %8s  %s\n' "case (MiB)" "idle" "VmHWM" "above" "per each" "<=$LIMIT" "taken" "sent" "sink got" "check"
for c in "${CASES[@]}"; do
  log "case $c"
  run "$c"
done
((FAILS == 0)) || log "$FAILS case(s) FAIL or INVALID"
[[ ${BENCH_STRICT:-0} == 1 && $FAILS -gt 0 ]] && exit 1
exit 0
