#!/usr/bin/env bash
# bench-conns.sh — many connections through `rangetap record`: the memory an idle keep-alive
# connection keeps, and a burst of connections checked against the capture.
#
# A private nginx serves a 16 KiB and a 1 MiB file on 127.0.0.1 over HTTP, over TLS (HTTP/1.1
# only) and over TLS with `http2` (a test CA made for the run); tools/conn-load.py is the client.
# Per scheme (BENCH_SCHEMES):
#   http   every request `GET http://127.0.0.1:ORIGIN/16k.bin?c=I HTTP/1.1` to the proxy
#   https  CONNECT, TLS through the tunnel trusting rangetap's CA (`record --ca-dir
#          --upstream-cacert`), then `GET /16k.bin?c=I`
#   h2     the same with ALPN h2, the GET as one HTTP/2 stream
# Rows per scheme:
#   idle   after 50 warm-up connections, rangetap's VmRSS; then 1,000 keep-alive connections each
#          complete one GET and stay open; 2 s later VmRSS again: KiB per connection = the growth
#          over 1,000. Once with the 16 KiB file, once with the 1 MiB one (20 connections at a
#          time after 100 warm-up ones, so the transfers' own memory is reached before the first
#          reading). 3 rounds, each a fresh rangetap, median judged; every connection must be
#          served and still open, and the capture must count every exchange. For http, nginx as
#          a reverse proxy gives the baseline of what a C server keeps (reported, not judged).
#   burst  5,000 connections, at most 500 in flight, each one GET of the 16 KiB file (200, its
#          exact bytes and SHA-256), then closed by the client; SIGINT to rangetap, which must exit
#          0; its capture must hold 5,000 GETs, each ended complete with the file's SHA-256, one
#          per client number, and no error event.
# TARGETS (PASS/FAIL): idle <= 64 KiB per connection, and all of the above.
#
# Descriptors: rangetap holds two per client connection (the socket and the duplicate ClientWire
# keeps for TCP_INFO) and one per upstream connection, the client one per connection. The soft
# `ulimit -n` is raised to min(20000, hard limit); the run needs 3 x 5,000 + 1024 (4,024 quick):
# with a lower hard limit it says so and exits 2.
#
# Knobs: RANGETAP=BIN (else the release build), BENCH_SCHEMES ("http https h2"), BENCH_QUICK=1
# (200 idle connections, one round, a burst of 1,000 with 200 in flight: about a minute),
# BENCH_KEEP_TMP=1, BENCH_TMPDIR. Report on stdout, progress on stderr. Exit status: 0 all PASS,
# 1 a FAIL, 2 when it cannot run.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-conns

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  IDLE_N=200 BURST_N=1000 BURST_C=200 ROUNDS=1
else
  IDLE_N=1000 BURST_N=5000 BURST_C=500 ROUNDS=3
fi
read -r -a SCHEMES <<<"${BENCH_SCHEMES:-http https h2}"
((${#SCHEMES[@]})) || die "BENCH_SCHEMES is empty"
for s in "${SCHEMES[@]}"; do [[ $s =~ ^(http|https|h2)$ ]] || die "BENCH_SCHEMES: http, https and/or h2, not '$s'"; done
need_origin_tools
[[ " ${SCHEMES[*]} " != *" h2 "* ]] || need_python_h2
release_binary

NEED_FDS=$((3 * (IDLE_N > BURST_N ? IDLE_N : BURST_N) + 1024)) want=20000 hard=$(ulimit -Hn)
if [[ $hard != unlimited ]]; then
  ((hard >= NEED_FDS)) || die "this run needs a hard \`ulimit -n\` of at least $NEED_FDS, not $hard (as root: ulimit -Hn $want)"
  ((hard >= want)) || want=$hard
fi
ulimit -n "$want" || die "cannot raise ulimit -n to $want"

mkdir -p "$T/www"
head -c 16384 /dev/urandom >"$T/www/16k.bin"
head -c $((1 << 20)) /dev/urandom >"$T/www/1m.bin"
tls_origin
"$BIN" ca init --ca-dir "$T/rtca" >"$T/ca.log" 2>&1 || die "rangetap ca init failed: $(cat "$T/ca.log")"
NGINX_MAIN="master_process off; worker_rlimit_nofile $want;" NGINX_CONNECTIONS=$want
ORIGIN=$(free_port) TLS=$(free_port) H2=$(free_port)
nginx_conf origin "$ORIGIN" "$(tls_server "$TLS ssl backlog=1024") $(tls_server "$H2 ssl http2 backlog=1024")" ""
start_nginx origin "$ORIGIN"

start_rangetap() { # start_rangetap SCHEME
  local tls=()
  rm -rf "$T/cap.rtap"
  [[ $1 == http ]] || tls=(--ca-dir "$T/rtca" --upstream-cacert "$ORIGIN_CA")
  start_record "$BIN" -o "$T/cap.rtap" "${tls[@]}"
}
load() { # load SCHEME FILE OUTFILE ARGS...: tools/conn-load.py, its key=value lines in OUTFILE
  local scheme=$1 file=$2 out=$3 port=$ORIGIN tls=()
  shift 3
  [[ $scheme == https ]] && port=$TLS
  [[ $scheme == h2 ]] && port=$H2
  [[ $scheme == http ]] || tls=(--ca "$T/rtca/rangetap-ca.pem")
  python3 "$BENCH_TOOLS/conn-load.py" "$@" --scheme "$scheme" "${tls[@]}" --origin-port "$port" --path "/$file" \
    --size "$(stat -c %s "$T/www/$file")" --sha256 "$(sha256sum "$T/www/$file" | cut -d' ' -f1)" >"$out" 2>"$out.err" || true
}
ROWS=() FAILS=0
row() { # row NAME MEASURED TARGET PASS(1, 0 or "info")
  local verdict=PASS
  case $4 in 0) verdict=FAIL FAILS=$((FAILS + 1)) ;; info) verdict=info ;; esac
  ROWS+=("$(printf '%-62s %-22s %-12s %s' "$1" "$2" "$3" "$verdict")")
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "" && a + 0 <= b) ? 1 : 0 }'; }

# idle SCHEME FILE: ROUNDS rounds of IDLE_N idle connections after one GET of FILE each.
idle() {
  local scheme=$1 file=$2 label="idle $1" conc=100 warm=50 per=1 r f kibs=() served=1 counts=() want x
  [[ $file == 1m.bin ]] && { conc=20 warm=100 label+=" after 1 MiB"; }
  [[ $scheme == http ]] || per=2 # a tunnel's CONNECT is an exchange of its own
  want=$(((warm + IDLE_N) * per))
  for ((r = 1; r <= ROUNDS; r++)); do
    log "$label, round $r of $ROUNDS: $IDLE_N keep-alive connections"
    f="$T/idle-$scheme-$file-$r.out"
    start_rangetap "$scheme"
    load "$scheme" "$file" "$f" idle --proxy-port "$RT_PORT" --pid "$RT_PID" --count "$IDLE_N" --concurrency "$conc" --warmup "$warm" --settle 2 --deadline 600
    stop "$RT_PID" INT 120
    kibs+=("$(val "$f" kib_per_connection)")
    [[ $(val "$f" ok) == "$IDLE_N" && $(val "$f" still_open) == "$IDLE_N" ]] || { served=0 && sed 's/^/    /' "$f.err" | tail -n 3 >&2; }
    counts+=("$("$BIN" summary "$T/cap.rtap" 2>&1 | tail -n 1 | sed -n 's/^\([0-9][0-9]*\) exchanges.*/\1/p')")
  done
  x=$(median <<<"${kibs[*]}")
  row "$label: KiB per connection ($IDLE_N, median of $ROUNDS)" "${x:-no figure}" "<= 64" "$(le "$x" 64)"
  ((ROUNDS == 1)) || row "$label: KiB per connection, each round" "${kibs[*]}" "-" info
  row "$label: every connection served and still open" "$([[ $served == 1 ]] && echo yes || echo no)" "yes" "$served"
  x=1
  for c in "${counts[@]}"; do [[ $c == "$want" ]] || x=0; done
  row "$label: capture exchanges, each round" "${counts[*]}" "$want" "$x"
}

# burst SCHEME: BURST_N connections, BURST_C in flight, one GET each.
burst() {
  local scheme=$1 f="$T/burst-$1.out" hwm err gets ends ids errs
  log "burst $scheme: $BURST_N connections, $BURST_C in flight"
  start_rangetap "$scheme"
  load "$scheme" 16k.bin "$f" burst --proxy-port "$RT_PORT" --count "$BURST_N" --concurrency "$BURST_C" --deadline 600
  hwm=$(hwm_kib "$RT_PID")
  stop "$RT_PID" INT 120
  err=$(val "$f" errors)
  [[ -n $err ]] || sed 's/^/    /' "$f" "$f.err" | tail -n 5 >&2
  grep '^error=' "$f" | head -n 3 | sed "s/^/    burst $scheme /" >&2 || true
  row "burst $scheme: client errors ($BURST_N, $BURST_C in flight)" "${err:-no figure}" "0" "$([[ $err == 0 ]] && echo 1 || echo 0)"
  row "burst $scheme: rangetap VmHWM, KiB" "${hwm:-?}" "-" info
  row "burst $scheme: rangetap exit status after SIGINT" "$STOP_RC" "0" "$((STOP_RC == 0))"
  read -r gets ids errs <<<"$(awk 'index($0, "\"type\":\"request\"") && index($0, "\"method\":\"GET\"") { gets++; if (match($0, /[?]c=[0-9]+/)) id[substr($0, RSTART + 3, RLENGTH - 3)] = 1 }
    index($0, "\"type\":\"error\"") { errs++ } END { n = 0; for (i in id) n++; print gets + 0, n, errs + 0 }' "$T/cap.rtap/events.jsonl")"
  ends=$(complete_gets "$T/cap.rtap" "$(sha256sum "$T/www/16k.bin" | cut -d' ' -f1)")
  row "burst $scheme: capture GETs, complete with the file's SHA-256" "$gets, $ends" "$BURST_N, $BURST_N" "$([[ $gets == "$BURST_N" && $ends == "$BURST_N" ]] && echo 1 || echo 0)"
  row "burst $scheme: capture client numbers, error events" "$ids, $errs" "$BURST_N, 0" "$([[ $ids == "$BURST_N" && $errs == 0 ]] && echo 1 || echo 0)"
}

for scheme in "${SCHEMES[@]}"; do
  idle "$scheme" 16k.bin
  if [[ $scheme == http ]]; then
    log "idle http: $IDLE_N keep-alive connections through nginx as a reverse proxy (baseline)"
    RP=$(free_port)
    nginx_conf rproxy "$RP" "" "proxy_pass http://127.0.0.1:$ORIGIN;"
    start_nginx rproxy "$RP"
    load http 16k.bin "$T/idle-nginx.out" idle --proxy-port "$RP" --pid "$NGINX_PID" --count "$IDLE_N" --concurrency 100 --warmup 50 --settle 2 --deadline 300
    stop "$NGINX_PID" TERM 10
    row "idle http, nginx reverse proxy: KiB per connection (baseline)" "$(val "$T/idle-nginx.out" kib_per_connection)" "-" info
  fi
  idle "$scheme" 1m.bin
  burst "$scheme"
done

echo "# bench-conns $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg); ulimit -n $(ulimit -n)"
echo "# rangetap $BIN  nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  python $(python3 -c 'import platform; print(platform.python_version())')"
printf '%-62s %-22s %-12s %s\n' row measured target result
printf '%s\n' "${ROWS[@]}"
((FAILS == 0)) || { echo "# $FAILS FAIL"; exit 1; }
echo "# all PASS"
