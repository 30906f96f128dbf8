# shellcheck shell=bash disable=SC2034
# bench-lib.sh — what the benchmarks in tools/ share. Source it, then call `bench_script NAME`.
# It sources tools/lib.sh (free_port, valgrind_prepare), tools/origin-certs.sh (a test CA and a
# server certificate for nginx) and tools/mitm-venv.sh (mitmproxy in tools/.venv).
#
# The rules every benchmark keeps: everything on 127.0.0.1 against a private nginx started from a
# generated config in a temp dir; baselines measured in the same run; every loop bounded in count
# and time; only the processes the script started are signalled, by PID (STARTED).
BENCH_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_TOOLS/.." && pwd)
# shellcheck source=tools/lib.sh
. "$BENCH_TOOLS/lib.sh"
# shellcheck source=tools/origin-certs.sh
. "$BENCH_TOOLS/origin-certs.sh"
# shellcheck source=tools/mitm-venv.sh
. "$BENCH_TOOLS/mitm-venv.sh"
HZ=$(getconf CLK_TCK)

# bench_script NAME: `log` (progress on stderr, "[NAME HH:MM:SS]") and `die` (logs ERROR, exits
# 2: the benchmark cannot run); no proxy from the environment reaches curl; a temp dir T (in
# BENCH_TMPDIR, else TMPDIR or /tmp) that is removed at exit (kept with BENCH_KEEP_TMP=1) after
# every process still in STARTED is stopped; Ctrl-C exits 130 through that.
bench_script() {
  BENCH_NAME=$1
  unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
  log() { printf '[%s %s] %s\n' "$BENCH_NAME" "$(date +%H:%M:%S)" "$*" >&2; }
  die() { log "ERROR: $*"; exit 2; }
  T=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/rangetap-$1.XXXXXX")
  chmod 755 "$T" # nginx's workers run as another user
  cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    for p in "${STARTED[@]}"; do stop "$p" TERM 5; done
    if [[ ${BENCH_KEEP_TMP:-0} == 1 ]]; then log "kept $T"; else rm -rf "$T"; fi
    exit "$rc"
  }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}

# release_binary: BIN is $RANGETAP when set, else the release build users get (tools/install.sh,
# the .deb: `release_build` of tools/release-build.sh), built in REPO_DIR.
release_binary() {
  if [[ -n ${RANGETAP:-} ]]; then
    BIN=$RANGETAP
  else
    log "building release (swift build -c release --product rangetap --static-swift-stdlib)"
    # shellcheck source=tools/release-build.sh
    . "$BENCH_TOOLS/release-build.sh"
    BIN=$(release_build "$REPO_DIR") || die "release build failed"
  fi
  [[ -x $BIN ]] || die "no rangetap binary at $BIN"
}

# ab_binaries USAGE BIN [BIN]: BINS (one or two executables) and NAMES (baseline, candidate).
ab_binaries() {
  local usage=$1 b
  shift
  (($# >= 1 && $# <= 2)) || die "usage: $usage"
  BINS=("$@") NAMES=(baseline candidate)
  NAMES=("${NAMES[@]:0:$#}")
  for b in "${BINS[@]}"; do [[ -x $b ]] || die "not an executable: $b"; done
}

# ---------------------------------------------------------------- packages
# install_missing PKG...: apt-get install (as root); fails when it cannot.
install_missing() {
  (($#)) || return 0
  log "installing missing packages: $*"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}
# need_origin_tools [PKG...]: nginx, curl and python3, and the packages given, installed when
# missing (one apt-get run); sets NGINX.
need_origin_tools() {
  local need=("$@")
  [[ -x /usr/sbin/nginx ]] || command -v nginx >/dev/null 2>&1 || need+=(nginx-light)
  command -v curl >/dev/null 2>&1 || need+=(curl)
  command -v python3 >/dev/null 2>&1 || need+=(python3)
  install_missing "${need[@]}" || die "could not install ${need[*]} (apt-get, as root)"
  NGINX=/usr/sbin/nginx
  [[ -x $NGINX ]] || NGINX=$(command -v nginx)
}
# need_python_h2: the Python h2 package (HTTP/2 clients), installed with pip when missing.
need_python_h2() {
  python3 -c 'import h2' >/dev/null 2>&1 || python3 -m pip install -q h2 >&2 || die "the Python h2 package is missing (pip install h2)"
}
# peer NAME: a baseline another project ships (socat, tinyproxy, mitmdump). PEER is its path and
# PEER_WHY empty when it is installed (mitmdump: tools/.venv's, else the PATH's); else PEER is
# empty and PEER_WHY says why its rows are not run. BENCH_INSTALL=1 installs a missing one first
# (apt-get; mitmproxy with pip into tools/.venv).
peer() {
  PEER="" PEER_WHY=""
  if [[ $1 == mitmdump ]]; then
    if [[ ! -x $BENCH_TOOLS/.venv/bin/mitmdump && ${BENCH_INSTALL:-0} == 1 ]]; then
      PEER_WHY=$(mitm_venv "$BENCH_TOOLS/.venv") || PEER_WHY="pip install mitmproxy failed: $PEER_WHY"
    fi
    PEER=$BENCH_TOOLS/.venv/bin/mitmdump
    [[ -x $PEER ]] || PEER=$(command -v mitmdump || true)
  else
    PEER=$(PATH=$PATH:/usr/sbin command -v "$1" || true)
    if [[ -z $PEER && ${BENCH_INSTALL:-0} == 1 ]]; then
      install_missing "$1" || PEER_WHY="apt-get install $1 failed"
      PEER=$(PATH=$PATH:/usr/sbin command -v "$1" || true)
    fi
  fi
  [[ -n $PEER ]] || PEER_WHY=${PEER_WHY:-"$1 is not installed (BENCH_INSTALL=1 installs it)"}
  [[ -z $PEER_WHY ]] || log "$1 rows not run: $PEER_WHY"
}

# ---------------------------------------------------------------- processes
# STARTED holds the PIDs this script started: only these are ever signalled.
STARTED=()
# alive PID: PID runs (a zombie, exited but not yet reaped, does not).
alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null && [[ $(ps -o stat= -p "$1" 2>/dev/null) != Z* ]]; }
# stop PID SIGNAL SECONDS: signal, wait at most SECONDS for the exit, then SIGKILL; STOP_RC is
# PID's exit status. PID leaves STARTED. (A process that is exiting can read as a zombie, then
# as running again while its threads end: the first reading that it is not running counts.)
stop() {
  local pid=$1 i p keep=() exited=0
  kill "-$2" "$pid" 2>/dev/null || true
  for ((i = 0; i < $3 * 10; i++)); do alive "$pid" || { exited=1 && break; }; sleep 0.1; done
  if ((!exited)); then
    log "pid $pid did not exit $3 s after SIG$2: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  STOP_RC=0
  wait "$pid" 2>/dev/null || STOP_RC=$?
  for p in "${STARTED[@]}"; do [[ $p == "$pid" ]] || keep+=("$p"); done
  STARTED=("${keep[@]}")
}
# spawn LOG CMD...: CMD in the background, its output in LOG; its PID in SPAWNED and STARTED.
spawn() {
  local out=$1
  shift
  "$@" >"$out" 2>&1 &
  SPAWNED=$!
  STARTED+=("$SPAWNED")
}
# listening PORT PID [SECONDS]: waits (at most SECONDS, 20) until 127.0.0.1:PORT accepts a
# connection; fails at once when PID has exited.
listening() {
  local i
  for ((i = 0; i < ${3:-20} * 10; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    alive "$2" || return 1
    sleep 0.1
  done
  return 1
}
# serve PORT LOG CMD...: spawn, then listening; when nothing listens, logs LOG's tail, stops the
# process and fails.
serve() {
  local port=$1
  shift
  spawn "$@"
  listening "$port" "$SPAWNED" && return 0
  log "nothing listens on $port: $(tail -n 3 "$1" | tr '\n' ' ')"
  stop "$SPAWNED" KILL 5
  return 1
}
# start_record BIN ARGS...: `BIN record --listen 127.0.0.1:PORT ARGS...` on a free port, its
# output in $T/record.log; sets RT_PID and RT_PORT; dies when it does not listen.
start_record() {
  local bin=$1
  shift
  RT_PORT=$(free_port)
  serve "$RT_PORT" "$T/record.log" "$bin" record --listen "127.0.0.1:$RT_PORT" "$@" || die "rangetap did not start"
  RT_PID=$SPAWNED
}

# ---------------------------------------------------------------- nginx
# nginx_conf NAME PORT HTTP_EXTRA LOCATION_BODY: $T/NAME/nginx.conf, a foreground nginx serving
# $T/www on 127.0.0.1:PORT, long keep-alive, no access log. NGINX_MAIN: main-context directives
# (default `worker_processes 1;`); NGINX_CONNECTIONS: worker_connections (1024).
nginx_conf() {
  local d="$T/$1"
  mkdir -p "$d"
  cat >"$d/nginx.conf" <<CONF
daemon off; ${NGINX_MAIN:-worker_processes 1;} pid $d/nginx.pid; error_log $d/error.log;
events { worker_connections ${NGINX_CONNECTIONS:-1024}; }
http {
  access_log off;
  client_body_temp_path $d; proxy_temp_path $d; fastcgi_temp_path $d; uwsgi_temp_path $d; scgi_temp_path $d;
  types { application/octet-stream bin; }
  keepalive_timeout 300s; keepalive_requests 1000000;
  $3
  server { listen 127.0.0.1:$2 backlog=1024; root $T/www; location / { $4 } }
}
CONF
}
# start_nginx NAME PORT: $NGINX with $T/NAME/nginx.conf; sets NGINX_PID; dies when PORT stays shut.
start_nginx() {
  serve "$2" "$T/$1/out.log" "$NGINX" -c "$T/$1/nginx.conf" -p "$T/$1" -e "$T/$1/error.log" ||
    die "nginx ($1) did not start: $(tail -n 3 "$T/$1/error.log")"
  NGINX_PID=$SPAWNED
}
# tls_origin: a test CA and a server certificate for 127.0.0.1 and localhost, made for this run
# in $T/tls; sets ORIGIN_CA. tls_server LISTEN: an nginx server block serving $T/www on
# 127.0.0.1:LISTEN ("PORT ssl", "PORT ssl http2") with that certificate.
tls_origin() {
  command -v openssl >/dev/null 2>&1 || install_missing openssl || die "openssl is missing"
  origin_certificates "$T/tls" "$BENCH_NAME"
  ORIGIN_CA=$T/tls/origin-ca.pem
}
tls_server() {
  printf 'server { listen 127.0.0.1:%s; ssl_certificate %s; ssl_certificate_key %s; ssl_protocols TLSv1.2 TLSv1.3; root %s; }\n' \
    "$1" "$T/tls/server.pem" "$T/tls/server.key" "$T/www"
}

# ---------------------------------------------------------------- figures
# val FILE KEY: the value of the first KEY=value line of FILE.
val() { awk -F= -v k="$2" '$1 == k { print substr($0, length(k) + 2); exit }' "$1"; }
# cpu_ticks PID: user + system clock ticks of PID, of the children it reaped (a forking relay's
# connections) and of its live children (nginx's workers); 0 when it is gone.
cpu_ticks() {
  local p t=0 s f
  for p in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
    s=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    read -r -a f <<<"${s##*) }" # after the command name: field 3 (state) is f[0]
    t=$((t + f[11] + f[12]))    # utime, stime
    [[ $p != "$1" ]] || t=$((t + f[13] + f[14])) # cutime, cstime
  done
  echo "$t"
}
# hwm_kib PID: PID's peak resident memory (VmHWM), KiB.
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# machine_busy_ticks: the clock ticks all CPUs spent not idle (every process: /proc/stat).
machine_busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# cores_busy BUSY0 BUSY1 NS0 NS1: the cores the machine kept busy between two readings of
# machine_busy_ticks taken at `date +%s%N` times NS0 and NS1. Below nproc with work left, requests
# wait for wake-ups, not for a CPU.
cores_busy() { awk -v b=$(($2 - $1)) -v w=$(($4 - $3)) -v h="$HZ" 'BEGIN { printf "%.3f", b / h / (w / 1e9) }'; }
# median [DECIMALS [NONE]]: the median of the numbers on stdin (blank-separated), DECIMALS (1)
# decimals; NONE (empty) when there are none.
median() { tr ' ' '\n' | awk 'NF' | sort -g | awk -v f="%.${1:-1}f" -v none="${2-}" '{ a[NR] = $1 } END { if (NR == 0) print none; else if (NR % 2) printf f, a[(NR + 1) / 2]; else printf f, (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# ratio A B [DECIMALS]: A / B with DECIMALS (2) decimals; "-" when either is missing or B is 0.
ratio() { awk -v a="$1" -v b="$2" -v f="%.${3:-2}f" 'BEGIN { if (a == "" || a == "-" || b == "" || b == "-" || b + 0 == 0) print "-"; else printf f, a / b }'; }

# get_through PID CURL_ARGS...: one GET with curl (CURL_ARGS: options and URL; at most 600 s)
# through the proxy PID ("" for none). Prints "BYTES BYTES_PER_S TTFB_S HTTP_CODE HTTP_VERSION
# CPU_S HWM_KIB": PID's CPU during the GET (the children it reaped too: their exit is waited for,
# at most 2 s) and its peak RSS; "-" for both without PID.
get_through() {
  local pid=$1 c0=0 c1=0 out cpu=- hwm=- i
  shift
  [[ -z $pid ]] || c0=$(cpu_ticks "$pid")
  out=$(curl -s -o /dev/null --max-time 600 -w '%{size_download} %{speed_download} %{time_starttransfer} %{http_code} %{http_version}' "$@" || true)
  if [[ -n $pid ]]; then
    for ((i = 0; i < 20; i++)); do [[ -z $(ps -o pid= --ppid "$pid") ]] && break; sleep 0.1; done
    c1=$(cpu_ticks "$pid")
    cpu=$(awk -v t=$((c1 - c0)) -v h="$HZ" 'BEGIN { printf "%.3f", t / h }')
    hwm=$(hwm_kib "$pid")
  fi
  echo "$out $cpu ${hwm:--}"
}

# ttfb_pairs N BYTES DIRECT_CURL_ARGS... [-- PROXY_CURL_ARGS...]: N times a GET straight to the
# origin, then one through the proxy, each a new curl process (a new connection). Prints the
# medians of their times to first byte in ms, "PROXY DIRECT OK": those of the GETs that got 200
# and BYTES bytes, OK of them through the proxy. Without a proxy part, PROXY is DIRECT. Pairing
# each with a direct GET just before it keeps load drifting between configurations out of the
# difference.
ttfb_pairs() {
  local n=$1 size=$2 d=() p=() i out t c s
  shift 2
  while (($#)) && [[ $1 != -- ]]; do d+=("$1"); shift; done
  (($#)) && shift
  p=("$@")
  : >"$T/ttfb.d"
  : >"$T/ttfb.p"
  for ((i = 0; i < n; i++)); do
    out=$(curl -s -o /dev/null --max-time 30 -w '%{time_starttransfer} %{http_code} %{size_download}' "${d[@]}" || true)
    read -r t c s <<<"$out"
    [[ $c != 200 || $s != "$size" ]] || echo "$t" >>"$T/ttfb.d"
    ((${#p[@]})) || continue
    out=$(curl -s -o /dev/null --max-time 30 -w '%{time_starttransfer} %{http_code} %{size_download}' "${p[@]}" || true)
    read -r t c s <<<"$out"
    [[ $c != 200 || $s != "$size" ]] || echo "$t" >>"$T/ttfb.p"
  done
  ((${#p[@]})) || cp "$T/ttfb.d" "$T/ttfb.p"
  echo "$(awk '{ print $1 * 1000 }' "$T/ttfb.p" | median 3 -) $(awk '{ print $1 * 1000 }' "$T/ttfb.d" | median 3 -) $(wc -l <"$T/ttfb.p")"
}

# complete_gets CAPTURE SHA256: the exchanges of a capture whose body ended as the origin framed
# it with every byte delivered (an `end` event: a cancel never is one) and had that SHA-256.
complete_gets() {
  awk -v s="\"sha256\":\"$2\"" 'index($0, "\"type\":\"end\"") && index($0, s) { n++ } END { print n + 0 }' "$1/events.jsonl" 2>/dev/null || echo 0
}
