#!/usr/bin/env bash
# bench-conns.sh — connection-scale benchmark of `rangetap record` (issue 15, "Performance").
#
# Everything on 127.0.0.1: a private nginx (generated config in a temp dir) serves a 16 KiB and a
# 1 MiB file over plain HTTP, over TLS (HTTP/1.1 only) and over TLS with h2 (a test CA and
# certificate made by openssl in the temp dir); `rangetap record` listens on a free port;
# tools/conn-load.py (Python standard library; the `h2` package for h2) is the client. Each scheme
# of BENCH_SCHEMES (default "http https h2") gets the same rows:
#   http   every request the absolute form `GET http://127.0.0.1:NGINX/16k.bin?c=I HTTP/1.1`
#   https  CONNECT 127.0.0.1:TLSPORT, TLS through the tunnel trusting rangetap's CA (rangetap
#          intercepts: `record --ca-dir DIR --upstream-cacert ORIGIN_CA`), then `GET /16k.bin?c=I`
#   h2     the same with ALPN h2 to the h2 port, the GET as one HTTP/2 stream
#   idle   after 50 warm-up connections, VmRSS (and VmHWM, open descriptors) of rangetap is read
#          from /proc/PID/status; then 1,000 keep-alive connections each complete one GET and stay
#          open and idle; after 2 s the reading is taken again. KiB per connection =
#          (VmRSS after - VmRSS before) / 1,000. Every connection must still be open then.
#          Once with the 16 KiB file and once with the 1 MiB one ("idle after 1 MiB"): what a
#          connection keeps after carrying a large body (a player's connections carry segments);
#          that row opens 20 connections at a time after 100 warm-up ones, so that the memory of
#          the transfers in flight is reached before the first reading.
#          Each idle row runs BENCH_IDLE_ROUNDS times (3; 1 with BENCH_QUICK=1), each with a
#          fresh rangetap, and reports the median KiB per connection (the readings of one binary
#          move by about 1 KiB from run to run); every round must serve and keep every connection.
#          For http, the 16 KiB row also against a second nginx acting as a reverse proxy
#          (proxy_pass to the first), as a baseline for what a C server pays per idle connection
#          (BENCH_NGINX_BASELINE=0: not).
#   burst  a fresh `rangetap record`; 5,000 connections, at most 500 in flight, each one GET of
#          the 16 KiB file (status 200, exactly 16,384 bytes, the file's SHA-256), then a close by
#          the client. Then SIGINT to rangetap, and the capture must say 5,000 exchanges to
#          `rangetap summary` (10,000 with https and h2: each connection's CONNECT is an exchange
#          too) and 5,000 complete GETs (200, 16,384 bytes) to `rangetap inspect --json`: no lost
#          events.
# TARGETS (PASS/FAIL in the table), for every scheme: idle <= 64 KiB per connection, every
# connection served and still open; burst 0 errors; capture 5,000 GETs, all complete.
#
# Descriptors: rangetap holds two per client connection (the socket, and a duplicate kept to read
# TCP_INFO after NIO closed its own: Sources/RangeTapProxy/ClientWire.swift) and one per upstream
# connection; the client one per connection. The script raises the soft `ulimit -n` to
# min(20000, hard limit) and needs at least 3 x max(idle, burst) + 1024 (16,024 for the full run,
# 4,024 with BENCH_QUICK=1): sized as if every connection of the burst were open at once, so slow
# closes cannot run it out. With a lower hard limit it says so, naming the figure, and exits 2.
#
# Usage: tools/bench-conns.sh
# Environment:
#   BENCH_QUICK=1        200 idle connections, 1,000 in the burst (200 in flight), one idle round:
#                        about a minute
#   BENCH_IDLE_ROUNDS=N  rounds of each idle row, median reported (default 3, 1..9)
#   BENCH_SCHEMES="http https h2"  the schemes to run (any of the three, in that order)
#   RANGETAP=BIN         use this binary; otherwise the one tools/install.sh builds
#                        (`swift build -c release --product rangetap --static-swift-stdlib`)
#   BENCH_NGINX_BASELINE=0  no nginx reverse-proxy baseline row (default 1)
#   BENCH_KEEP_TMP=1     keep the temp dir (captures, logs)
#   BENCH_TMPDIR (/tmp)  where the temp dir goes
# The report goes to stdout, progress to stderr. Exit status: 0 all PASS, 1 a FAIL, 2 setup failure.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
. "$SCRIPT_DIR/bench-lib.sh"
. "$SCRIPT_DIR/origin-certs.sh"
bench_script bench-conns

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  IDLE_N=200 BURST_N=1000 BURST_C=200 IDLE_ROUNDS=${BENCH_IDLE_ROUNDS:-1}
else
  IDLE_N=1000 BURST_N=5000 BURST_C=500 IDLE_ROUNDS=${BENCH_IDLE_ROUNDS:-3}
fi
[[ $IDLE_ROUNDS =~ ^[1-9]$ ]] || die "BENCH_IDLE_ROUNDS must be 1..9, not '$IDLE_ROUNDS'"
FILE_SIZE=16384
BIG_SIZE=$((1 << 20))
TARGET_KIB=64
NGINX_BASELINE=${BENCH_NGINX_BASELINE:-1}
read -r -a SCHEMES <<<"${BENCH_SCHEMES:-http https h2}"
((${#SCHEMES[@]})) || die "BENCH_SCHEMES is empty"
NEED_TLS=0
for s in "${SCHEMES[@]}"; do
  case $s in http) ;; https|h2) NEED_TLS=1 ;; *) die "BENCH_SCHEMES: http, https and/or h2, not '$s'" ;; esac
done

for tool in nginx python3; do
  command -v "$tool" >/dev/null 2>&1 || [[ -x /usr/sbin/$tool ]] || die "$tool is missing: run tools/install-deps.sh"
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if ((NEED_TLS)); then
  command -v openssl >/dev/null 2>&1 || die "openssl is missing (apt-get install -y openssl), or BENCH_SCHEMES=http"
  nginx_V=$("$NGINX" -V 2>&1)
  [[ $nginx_V == *http_ssl_module* && $nginx_V == *http_v2_module* ]] || die "this nginx has no http_ssl_module or http_v2_module (BENCH_SCHEMES=http runs the plain rows)"
fi
if [[ " ${SCHEMES[*]} " == *" h2 "* ]]; then
  python3 -c 'import h2' >/dev/null 2>&1 || python3 -m pip install -q h2 >&2 || die "the Python h2 package is missing (python3 -m pip install h2), or leave h2 out of BENCH_SCHEMES"
fi

# ---------------------------------------------------------------- descriptors
max_n=$((IDLE_N > BURST_N ? IDLE_N : BURST_N))
NEED_FDS=$((3 * max_n + 1024))
hard=$(ulimit -Hn)
want=20000
if [[ $hard != unlimited ]]; then
  ((hard >= NEED_FDS)) || die "ulimit -n: this run needs at least $NEED_FDS open files (3 x $max_n connections + 1024), the hard limit is $hard; raise it (e.g. \`ulimit -Hn $want\` as root, or LimitNOFILE=$want in a systemd unit)"
  ((hard < want)) && want=$hard
fi
((want < NEED_FDS)) && want=$NEED_FDS
ulimit -n "$want" || die "cannot raise ulimit -n to $want (needs $NEED_FDS)"
log "ulimit -n $(ulimit -n) (needs $NEED_FDS)"

# ---------------------------------------------------------------- binary
release_binary

# ---------------------------------------------------------------- temp dir, processes
T=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/bench-conns.XXXXXX")
stop_on_exit

# ---------------------------------------------------------------- nginx origin (+ reverse proxy)
mkdir -p "$T/www"
head -c "$FILE_SIZE" /dev/urandom >"$T/www/16k.bin"
head -c "$BIG_SIZE" /dev/urandom >"$T/www/1m.bin"
FILE_SHA=$(sha256sum "$T/www/16k.bin" | cut -d' ' -f1)
BIG_SHA=$(sha256sum "$T/www/1m.bin" | cut -d' ' -f1)

# The nginx of this benchmark: one process, as many connections as descriptors allow.
NGINX_MAIN="master_process off; worker_rlimit_nofile $want;"
NGINX_CONNECTIONS=$want

ORIGIN_PORT=$(free_port)
TLS_PORT=$(free_port)
H2_PORT=$(free_port)
TLS_SERVERS=""
if ((NEED_TLS)); then
  origin_certificates "$T/tls" bench-conns
  for listen in "$TLS_PORT ssl" "$H2_PORT ssl http2"; do
    TLS_SERVERS+="server { listen 127.0.0.1:$listen backlog=1024; ssl_certificate $T/tls/server.pem; ssl_certificate_key $T/tls/server.key; ssl_protocols TLSv1.2 TLSv1.3; root $T/www; }"$'\n'
  done
fi
nginx_conf origin "$ORIGIN_PORT" "$TLS_SERVERS" ""
start_nginx origin "$ORIGIN_PORT"
log "nginx origin pid $NGINX_STARTED_PID on 127.0.0.1:$ORIGIN_PORT (http)$( ((NEED_TLS)) && echo ", $TLS_PORT (https), $H2_PORT (h2)")"
if ((NEED_TLS)); then
  "$BIN" ca init --ca-dir "$T/rtca" >"$T/ca-init.log" 2>&1 || { cat "$T/ca-init.log" >&2; die "rangetap ca init failed"; }
fi

# ---------------------------------------------------------------- rangetap
start_rangetap() {  # start_rangetap SCHEME CAPTURE -> RT_PID, RT_PORT
  local tls=()
  [[ $1 == http ]] || tls=(--ca-dir "$T/rtca" --upstream-cacert "$T/tls/origin-ca.pem")
  RT_PORT=$(free_port)
  "$BIN" record --listen "127.0.0.1:$RT_PORT" -o "$2" "${tls[@]}" >"$2.log" 2>&1 &
  RT_PID=$!
  STARTED+=("$RT_PID")
  wait_port "$RT_PORT" || { cat "$2.log" >&2; die "rangetap did not start"; }
}
stop_rangetap() {  # SIGINT, at most 120 s to close the capture; RT_STOP_RC
  stop "$RT_PID" INT 120
  RT_STOP_RC=$STOP_RC
}

load() {  # load SCHEME FILE OUTFILE ARGS...: runs tools/conn-load.py, its key=value lines into OUTFILE
  local scheme=$1 file=$2 out=$3 port=$ORIGIN_PORT size=$FILE_SIZE sha=$FILE_SHA
  shift 3
  case $scheme in https) port=$TLS_PORT ;; h2) port=$H2_PORT ;; esac
  [[ $file == 1m.bin ]] && { size=$BIG_SIZE; sha=$BIG_SHA; }
  local tls=()
  [[ $scheme == http ]] || tls=(--ca "$T/rtca/rangetap-ca.pem")
  python3 "$SCRIPT_DIR/conn-load.py" "$@" --scheme "$scheme" "${tls[@]}" --origin-port "$port" --path "/$file" \
    --size "$size" --sha256 "$sha" >"$out" 2>"$out.err" || true
}

ROWS=()
FAILS=0
row() {  # row NAME MEASURED TARGET PASS(0|1)
  local verdict=PASS
  [[ $4 == 1 ]] || { verdict=FAIL; FAILS=$((FAILS + 1)); }
  ROWS+=("$(printf '%-62s %-22s %-12s %s' "$1" "$2" "$3" "$verdict")")
}
info() { ROWS+=("$(printf '%-62s %-22s %-12s %s' "$1" "$2" "-" "info")"); }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }' && echo 1 || echo 0; }

# ---------------------------------------------------------------- idle
idle_rows() {  # idle_rows LABEL OUTFILE JUDGED(0|1) [KIB: the figure judged, else the file's]
  local f=$2 n kib ok open
  n=$(val "$f" connections); kib=${4:-$(val "$f" kib_per_connection)}; ok=$(val "$f" ok); open=$(val "$f" still_open)
  if [[ -z $kib ]]; then
    row "$1: KiB per connection" "no figure" "<= $TARGET_KIB KiB" 0
    sed 's/^/    /' "$f" "$f.err" >&2
    return
  fi
  if [[ $3 == 1 ]]; then
    row "$1: KiB per connection ($n conns${4:+, median of $IDLE_ROUNDS})" "$kib" "<= $TARGET_KIB" "$(le "$kib" "$TARGET_KIB")"
    row "$1: served and still open" "$ok / $open of $n" "$n / $n" "$([[ $ok == "$n" && $open == "$n" ]] && echo 1 || echo 0)"
  else  # a baseline: reported, not judged
    info "$1: KiB per connection ($n conns)" "$kib"
    info "$1: served and still open" "$ok / $open of $n"
  fi
  info "$1: VmRSS before -> after, KiB" "$(val "$f" before_rss_kib) -> $(val "$f" after_rss_kib)"
  info "$1: VmHWM after, KiB" "$(val "$f" after_hwm_kib)"
  info "$1: RssAnon KiB per connection" "$(val "$f" anon_kib_per_connection)"
  info "$1: open fds per connection" "$(val "$f" fds_per_connection)"
  grep '^error=' "$f" | head -n 3 | sed "s/^/    $1 /" >&2 || true
}

# exchanges_per_connection SCHEME: a tunnelled connection's CONNECT is an exchange of its own.
exchanges_per_connection() { [[ $1 == http ]] && echo 1 || echo 2; }

# idle_scheme SCHEME FILE LABEL: with the 16 KiB file 100 connections are opened at a time after 50
# warm-up ones; with the 1 MiB file 20 at a time after 100 warm-up ones at that same concurrency,
# so that the heap the transfers in flight need (a flow-control window of up to 1 MiB each) is
# reached before the first reading and is not counted as the idle connections' cost.
idle_scheme() {
  local scheme=$1 file=$2 label=$3 per concurrency=100 warmup=50 r f kibs=() files=() served=1 exchanges=() want
  [[ $file == 1m.bin ]] && { concurrency=20; warmup=100; }
  per=$(exchanges_per_connection "$scheme")
  want=$(((warmup + IDLE_N) * per))
  for ((r = 1; r <= IDLE_ROUNDS; r++)); do
    log "idle $scheme, round $r of $IDLE_ROUNDS: $IDLE_N keep-alive connections through rangetap, one GET of $file each"
    f="$T/idle-$scheme-$file-r$r.out"
    start_rangetap "$scheme" "$T/idle.rtap"
    load "$scheme" "$file" "$f" idle --proxy-port "$RT_PORT" --pid "$RT_PID" --count "$IDLE_N" --concurrency "$concurrency" --warmup "$warmup" --settle 2 --deadline 600
    stop_rangetap
    [[ $RT_STOP_RC == 0 ]] || log "rangetap (idle $scheme, round $r) exited with status $RT_STOP_RC"
    kibs+=("$(val "$f" kib_per_connection)")
    files+=("$f")
    [[ $(val "$f" ok) == "$IDLE_N" && $(val "$f" still_open) == "$IDLE_N" ]] || served=0
    exchanges+=("$("$BIN" summary "$T/idle.rtap" 2>&1 | tail -n 1 | sed -n 's/^\([0-9][0-9]*\) exchanges.*/\1/p')")
    rm -rf "$T/idle.rtap"
  done
  # The round whose figure is the median (the middle one of an odd count; both are spelled with
  # one decimal) gives the detail rows.
  local median pick=${files[0]}
  median=$(median <<<"${kibs[*]}")
  for ((r = 0; r < IDLE_ROUNDS; r++)); do [[ ${kibs[r]} == "$median" ]] && { pick=${files[r]}; break; }; done
  idle_rows "$label" "$pick" 1 "$median"
  ((IDLE_ROUNDS == 1)) || info "$label: KiB per connection, each round" "${kibs[*]}"
  ((IDLE_ROUNDS == 1)) || row "$label: served and still open, every round" "$([[ $served == 1 ]] && echo yes || echo no)" "yes" "$served"
  local all_right=1 x
  for x in "${exchanges[@]}"; do [[ $x == "$want" ]] || all_right=0; done
  row "$label: capture exchanges (($warmup warm-up + $IDLE_N) x $per)" "${exchanges[*]}" "$want" "$all_right"
}

# ---------------------------------------------------------------- burst
burst_scheme() {  # burst_scheme SCHEME
  local scheme=$1 per f="$T/burst-$1.out"
  per=$(exchanges_per_connection "$scheme")
  log "burst $scheme: $BURST_N connections, $BURST_C in flight"
  start_rangetap "$scheme" "$T/burst.rtap"
  load "$scheme" 16k.bin "$f" burst --proxy-port "$RT_PORT" --count "$BURST_N" --concurrency "$BURST_C" --deadline 600
  local burst_hwm b_err
  burst_hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$RT_PID/status" 2>/dev/null || echo "")
  stop_rangetap
  b_err=$(val "$f" errors)
  row "burst $scheme: errors ($BURST_N conns, $BURST_C in flight)" "${b_err:-no figure}" "0" "$([[ $b_err == 0 ]] && echo 1 || echo 0)"
  grep -E '^(errors_|error=)' "$f" | sed "s/^/    burst $scheme /" >&2 || true
  [[ -n $b_err ]] || sed 's/^/    /' "$f" "$f.err" >&2
  info "burst $scheme: client wall seconds (noisy)" "$(val "$f" seconds)"
  info "burst $scheme: rangetap VmHWM, KiB" "${burst_hwm:-?}"
  row "burst $scheme: rangetap exit status after SIGINT" "$RT_STOP_RC" "0" "$([[ $RT_STOP_RC == 0 ]] && echo 1 || echo 0)"

  local summary s_ex s_errs inspect i_all i_complete i_distinct
  summary=$("$BIN" summary "$T/burst.rtap" 2>&1 | tail -n 1 || true)
  s_ex=$(sed -n 's/^\([0-9][0-9]*\) exchanges.*/\1/p' <<<"$summary")
  s_errs=$(sed -n 's/.*, \([0-9][0-9]*\) errors$/\1/p' <<<"$summary")
  row "burst $scheme: summary exchanges" "${s_ex:-?}" "$((BURST_N * per))" "$([[ $s_ex == $((BURST_N * per)) ]] && echo 1 || echo 0)"
  row "burst $scheme: summary errors" "${s_errs:-?}" "0" "$([[ $s_errs == 0 ]] && echo 1 || echo 0)"
  inspect=$("$BIN" inspect "$T/burst.rtap" --json 2>"$T/inspect.err" | python3 -c '
import json, sys
size = int(sys.argv[1])
ex = [e for e in json.load(sys.stdin)["exchanges"] if e.get("method") != "CONNECT"]
complete = [e for e in ex if e.get("outcome") == "complete" and e.get("status") == 200 and e.get("bytesReceived") == size]
ids = {e.get("url", "").rpartition("?c=")[2] for e in ex}
print(len(ex), len(complete), len(ids))
' "$FILE_SIZE" 2>>"$T/inspect.err" || echo "? ? ?")
  read -r i_all i_complete i_distinct <<<"$inspect"
  row "burst $scheme: inspect GETs, complete (200, 16 KiB)" "$i_all, $i_complete" "$BURST_N, $BURST_N" "$([[ $i_all == "$BURST_N" && $i_complete == "$BURST_N" ]] && echo 1 || echo 0)"
  row "burst $scheme: distinct client numbers in capture" "$i_distinct" "$BURST_N" "$([[ $i_distinct == "$BURST_N" ]] && echo 1 || echo 0)"
  [[ -s $T/inspect.err ]] && sed 's/^/    inspect: /' "$T/inspect.err" >&2
  rm -rf "$T/burst.rtap"
}

for scheme in "${SCHEMES[@]}"; do
  idle_scheme "$scheme" 16k.bin "idle $scheme"
  if [[ $scheme == http && $NGINX_BASELINE == 1 ]]; then
    log "idle: $IDLE_N keep-alive connections through nginx as a reverse proxy (baseline)"
    RP_PORT=$(free_port)
    nginx_conf rproxy "$RP_PORT" "" "proxy_pass http://127.0.0.1:$ORIGIN_PORT;"
    start_nginx rproxy "$RP_PORT"
    RP_PID=$NGINX_STARTED_PID
    load http 16k.bin "$T/idle-nginx.out" idle --proxy-port "$RP_PORT" --pid "$RP_PID" --count "$IDLE_N" --concurrency 100 --warmup 50 --settle 2 --deadline 300
    stop "$RP_PID" TERM 10
    idle_rows "idle http, nginx reverse proxy (baseline)" "$T/idle-nginx.out" 0
  fi
  idle_scheme "$scheme" 1m.bin "idle $scheme after 1 MiB"
  burst_scheme "$scheme"
done

# ---------------------------------------------------------------- report
mem_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
echo "# bench-conns.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)$([[ ${BENCH_QUICK:-0} == 1 ]] && echo "  BENCH_QUICK=1")"
echo "# rangetap $("$BIN" --version 2>/dev/null || echo '?') ($BIN)  nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  python $(python3 -c 'import platform; print(platform.python_version())')"
echo "# machine: nproc=$(nproc)  kernel=$(uname -r)  RAM=$(awk -v k="$mem_kib" 'BEGIN { printf "%.1f GiB", k / 1048576 }')  load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# ulimit -n $(ulimit -n) (this run needs $NEED_FDS)"
printf '%-58s %-22s %-12s %s\n' "row" "measured" "target" "result"
printf '%s\n' "${ROWS[@]}"
if ((FAILS)); then
  echo "# $FAILS FAIL"
  exit 1
fi
echo "# all PASS"
