#!/usr/bin/env bash
# bench-memory.sh — the memory rangetap holds for clients that do not read and for uploads that
# never end (docs/http2.md, "Back-pressure and memory").
#
# A private nginx (one worker) serves a 256 MiB file on 127.0.0.1 over plain HTTP, over TLS
# (HTTP/1.1 only) and over TLS with `http2`; rangetap runs with `--insecure`.
# Tests/Origins/sink_origin.py reads request bodies and counts them. Each case (BENCH_CASES) runs
# against a fresh `rangetap record --no-bodies` with its own CA:
#   h2         BENCH_STREAMS streams of 200 MB ranges, Tests/Clients/h2_zero_window.py through
#              CONNECT + TLS (ALPN h2), 100 streams a connection (what rangetap announces), one
#              client per connection, all at once; no WINDOW_UPDATE ever goes back; held
#              BENCH_STALL seconds once every stream has its head
#   h2c        the same over h2c with prior knowledge, to nginx's plain port
#   h2-mux     BENCH_CLIENTS such streams on one connection with `record --upstream-multiplex`:
#              one upstream connection for all of them, which libcurl 7.88 keeps reading for
#              paused streams within the window it granted
#   stall-h1   BENCH_CLIENTS curl processes over HTTPS (HTTP/1.1), each its own connection,
#              reading 1 KB/s (--limit-rate 1k) for BENCH_STALL seconds
#   upload-h1  BENCH_CLIENTS curl processes, each a chunked POST of /dev/zero (`-T -`) through
#              rangetap (`-x`) to the sink, for BENCH_STALL seconds
#   upload-h2  BENCH_CLIENTS streams of Tests/Clients/h2_upload_flood.py (h2c, 5 a connection),
#              DATA as fast as the windows allow, to the sink, for BENCH_STALL seconds
# Printed per case: rangetap's RSS once idle (after one warm-up GET), its VmHWM, the difference,
# that per stream or client, PASS when VmHWM is at most 128 MiB, the body bytes its exchanges took
# from libcurl (the capture's chunk events), what the clients sent and the sink got (uploads), and
# what shows the case ran as said (else INVALID): the heads and their statuses, ALPN h2, at least
# 1 MiB sent per upload, no client failed; rangetap's error events.
#
# Knobs: RANGETAP=BIN (else the release build), BENCH_CASES ("h2 h2c h2-mux stall-h1 upload-h1
# upload-h2"), BENCH_STREAMS (500), BENCH_CLIENTS (10), BENCH_STALL (8 s), BENCH_RECORD_ARGS (more
# arguments for `record`, e.g. "--body-memory 32m"), BENCH_KEEP_TMP=1, BENCH_TMPDIR. Needs nginx,
# curl, openssl, python3 with h2 (installed when missing). Exit status: 0 all PASS, 1 a FAIL or
# INVALID, 2 when it cannot run.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-memory

read -r -a CASES <<<"${BENCH_CASES:-h2 h2c h2-mux stall-h1 upload-h1 upload-h2}"
read -r -a EXTRA <<<"${BENCH_RECORD_ARGS:-}"
STREAMS=${BENCH_STREAMS:-500} CLIENTS=${BENCH_CLIENTS:-10} STALL=${BENCH_STALL:-8} LIMIT=128
for c in "${CASES[@]}"; do [[ $c =~ ^(h2|h2c|h2-mux|stall-h1|upload-h1|upload-h2)$ ]] || die "BENCH_CASES: h2 h2c h2-mux stall-h1 upload-h1 upload-h2, not '$c'"; done
[[ $STREAMS =~ ^[0-9]+$ && $STREAMS -ge 1 && $STREAMS -le 1000 ]] || die "BENCH_STREAMS must be 1..1000"
[[ $CLIENTS =~ ^[0-9]+$ && $CLIENTS -ge 1 && $CLIENTS -le 100 ]] || die "BENCH_CLIENTS must be 1..100"
[[ $STALL =~ ^[0-9]+$ && $STALL -ge 1 && $STALL -le 60 ]] || die "BENCH_STALL must be 1..60 seconds"
need_origin_tools
need_python_h2
release_binary

mkdir -p "$T/www"
head -c $((256 << 20)) /dev/zero >"$T/www/big.bin"
tls_origin
PLAIN=$(free_port) H1=$(free_port) H2=$(free_port) SINK=$(free_port)
nginx_conf origin "$PLAIN" "$(tls_server "$H1 ssl") $(tls_server "$H2 ssl http2")" ""
start_nginx origin "$PLAIN"
serve "$SINK" "$T/sink.log" python3 "$REPO_DIR/Tests/Origins/sink_origin.py" --port "$SINK" --total "$T/sink.total" ||
  die "the sink origin did not start"

rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$1/status"; }
mib() { awk -v b="${1:-0}" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# reap SECONDS PID...: waits until the PIDs have exited, at most SECONDS in all, then stops the rest.
reap() {
  local end=$((SECONDS + $1)) p
  shift
  for p in "$@"; do
    while alive "$p" && ((SECONDS < end)); do sleep 0.2; done
    stop "$p" TERM 5
  done
}
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
  local kind=$1 n=$CLIENTS idle peak taken errors i pids=() outs=() sink0 sink1 sent=- got=- check ok=1 mux=() ca
  [[ $kind == h2-mux ]] && mux=(--upstream-multiplex)
  rm -rf "$T/cap.rtap" "$T"/out.* "$T"/ready.* "$T/release"
  start_record "$BIN" -o "$T/cap.rtap" --no-bodies --ca-dir "$T/ca" --insecure "${mux[@]}" "${EXTRA[@]}"
  ca=$T/ca/rangetap-ca.pem
  local warm=(--cacert "$ca" "https://localhost:$H2/big.bin") # the cases over TLS warm up over TLS
  [[ $kind == h2c || $kind == upload* ]] && warm=("http://127.0.0.1:$PLAIN/big.bin")
  [[ $(curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$RT_PORT" -r 0-1023 "${warm[@]}") == 206 ]] ||
    die "warm-up GET through rangetap did not get 206: $(tail -n 3 "$T/record.log")"
  idle=$(rss "$RT_PID")
  sink0=$(cat "$T/sink.total")
  case $kind in
    h2 | h2c | h2-mux)
      local tls=(--connect "localhost:$H2" --cafile "$ca" --authority "localhost:$H2") per=100
      [[ $kind == h2c ]] && tls=(--authority "127.0.0.1:$PLAIN")
      [[ $kind == h2-mux ]] || n=$STREAMS
      [[ $kind == h2-mux ]] && per=$n
      for ((i = 0; i * per < n; i++)); do
        spawn "$T/out.$i" python3 "$REPO_DIR/Tests/Clients/h2_zero_window.py" --proxy "127.0.0.1:$RT_PORT" "${tls[@]}" --path /big.bin \
          --streams $((n - i * per < per ? n - i * per : per)) --first $((i * per * 65536)) --step 65536 \
          --length 200000000 --timeout 30 --ready "$T/ready.$i" --release "$T/release" --hold $((STALL + 60))
        pids+=("$SPAWNED") outs+=("$T/out.$i")
      done
      local t0=$SECONDS
      while (($(ready) < ${#pids[@]} && SECONDS < t0 + 40)); do sleep 0.2; done
      log "$kind: $(ready) of ${#pids[@]} clients have their heads after $((SECONDS - t0)) s; holding ${STALL} s"
      sleep "$STALL"
      touch "$T/release"
      reap 20 "${pids[@]}" ;;
    stall-h1 | upload-h1)
      for ((i = 0; i < n; i++)); do
        if [[ $kind == stall-h1 ]]; then
          spawn "$T/out.$i" curl -s -o /dev/null -w '{"statuses": {"%{http_code}": 1}}\n' --http1.1 --limit-rate 1k --max-time "$STALL" \
            -x "http://127.0.0.1:$RT_PORT" --cacert "$ca" -r "$((i * 5000000))-$((i * 5000000 + 199999999))" "https://localhost:$H1/big.bin"
        else
          spawn "$T/out.$i" sh -c 'exec curl -s -o /dev/null -w "{\"sent\": %{size_upload}, \"statuses\": {\"%{http_code}\": 1}}\n" --max-time "$1" \
            -x "http://127.0.0.1:$2" -X POST -T - -H "Transfer-Encoding: chunked" "http://127.0.0.1:$3/up" </dev/zero' sh "$STALL" "$RT_PORT" "$SINK"
        fi
        pids+=("$SPAWNED") outs+=("$T/out.$i")
      done
      reap $((STALL + 10)) "${pids[@]}" ;;
    upload-h2)
      for ((i = 0; i * 5 < n; i++)); do
        spawn "$T/out.$i" python3 "$REPO_DIR/Tests/Clients/h2_upload_flood.py" --proxy "127.0.0.1:$RT_PORT" --authority "127.0.0.1:$SINK" \
          --path /up --streams $((n - i * 5 < 5 ? n - i * 5 : 5)) --seconds "$STALL"
        pids+=("$SPAWNED") outs+=("$T/out.$i")
      done
      reap $((STALL + 20)) "${pids[@]}" ;;
  esac
  peak=$(($(hwm_kib "$RT_PID") / 1024))
  stop "$RT_PID" INT 30
  sleep 0.5 # the sink's total is rewritten every 0.2 s
  sink1=$(cat "$T/sink.total")
  taken=$(awk '/"type":"chunk"/ { if (match($0, /"size":[0-9]+/)) s += substr($0, RSTART + 7, RLENGTH - 7) } END { print s + 0 }' "$T/cap.rtap/events.jsonl")
  errors=$(grep -c '"type":"error"' "$T/cap.rtap/events.jsonl" || true)
  local streams heads bytes up statuses alpn broken
  read -r streams heads bytes up statuses alpn broken <<<"$(summary "${outs[@]}")"
  case $kind in
    h2*)
      check="heads $heads/$n ($statuses), $([[ $kind == h2c ]] && echo h2c || echo "alpn $alpn"), read $(mib "$bytes") MiB"
      [[ $streams == "$n" && $statuses == "206x$n" && ($kind == h2c || $alpn == h2) ]] || ok=0 ;;
    stall-h1)
      check="statuses $statuses"
      [[ $statuses == "206x$n" ]] || ok=0 ;;
    upload*)
      sent=$(mib "$up") got=$(mib $((sink1 - sink0))) check="statuses $statuses"
      ((up >= n << 20)) || ok=0 ;;
  esac
  ((broken == 0)) || { ok=0 && check+=", $broken client(s) failed: $(tail -qn1 "${outs[@]}" | grep -v '^{' | head -n 1)"; }
  check+=", rangetap errors $errors"
  local verdict=PASS
  ((peak <= LIMIT)) || verdict=FAIL
  ((ok)) || verdict=INVALID
  [[ $verdict == PASS ]] || FAILS=$((FAILS + 1))
  printf '  %-20s %6s %7s %7s %8s %-8s %8s %8s %8s  %s\n' "$kind" "$idle" "$peak" "+$((peak - idle))" \
    "$(awk -v d=$((peak - idle)) -v n="$n" 'BEGIN { printf "%.2f", d / n }')" "$verdict" "$(mib "$taken")" "$sent" "$got" "$check"
}

echo "# bench-memory: $STREAMS zero-window streams, $CLIENTS multiplexed streams, stalled downloads and endless uploads, ${STALL} s each; 200 MB ranges of a 256 MiB file; rangetap record --no-bodies ${EXTRA[*]} ($BIN); $(nproc) cores, $(uname -r), $(curl --version | head -n 1 | grep -o 'libcurl/[^ ]*')"
printf '  %-20s %6s %7s %7s %8s %-8s %8s %8s %8s  %s\n' "case (MiB)" idle VmHWM above "per each" "<=$LIMIT" taken sent "sink got" check
for c in "${CASES[@]}"; do
  log "case $c"
  run "$c"
done
((FAILS == 0)) || { echo "# $FAILS case(s) FAIL or INVALID"; exit 1; }
echo "# all PASS"
