# Shared by the benchmarks in tools/ (source it after lib.sh, then call `bench_script NAME`).

# bench_script NAME: the script's `log` (progress on stderr, prefixed "[NAME HH:MM:SS]") and `die`
# (logs ERROR and exits 2: it cannot run); no proxy from the environment reaches its curl calls.
bench_script() {
  BENCH_NAME=$1
  unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
  log() { printf '[%s %s] %s\n' "$BENCH_NAME" "$(date +%H:%M:%S)" "$*" >&2; }
  die() { log "ERROR: $*"; exit 2; }
}

# val FILE KEY: the value of the first KEY=value line of FILE (the scripts' reports and clients).
val() { awk -F= -v k="$2" '$1 == k { print substr($0, length(k) + 2); exit }' "$1"; }

# cpu_ticks PID: user + system clock ticks of PID and its children (nginx workers), 0 when gone.
cpu_ticks() {
  local p t=0 s f
  for p in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
    s=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    read -r -a f <<<"${s##*) }"   # after the command name: field 3 (state) is f[0]
    t=$((t + f[11] + f[12]))      # utime (14), stime (15)
  done
  echo "$t"
}

# machine_busy_ticks: the clock ticks all CPUs of the machine spent not idle (user, nice, system,
# irq, softirq, steal; not idle or iowait), from /proc/stat: every process counts, ours or not.
machine_busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# cores_busy BUSY0 BUSY1 NS0 NS1: the cores the whole machine kept busy between two readings of
# machine_busy_ticks, BUSY0 and BUSY1, taken at `date +%s%N` times NS0 and NS1; three decimals.
cores_busy() { awk -v b=$(($2 - $1)) -v w=$(($4 - $3)) -v h="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", b / h / (w / 1e9) }'; }

# median [DECIMALS [NONE]]: the median of the numbers on stdin (separated by blanks), with
# DECIMALS decimals (1); NONE (empty) when there are none.
median() { tr ' ' '\n' | awk 'NF' | sort -g | awk -v f="%.${1:-1}f" -v none="${2-}" '{ a[NR] = $1 } END { if (NR == 0) print none; else if (NR % 2) printf f, a[(NR + 1) / 2]; else printf f, (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# ratio A B: A / B, two decimals; "-" when either is missing or B is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
# ge A B: 1 when the number A is at least B, else 0.
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && a != "" && a + 0 >= b + 0) }' && echo 1 || echo 0; }
# target_row NAME MEASURED TARGET VERDICT: a line of a load benchmark's target table; VERDICT 1 is
# PASS, 0 is FAIL (counted in FAILS), anything else is printed as it is ("not run: ...").
target_row() {
  local verdict=PASS
  case $4 in 1) ;; 0) verdict=FAIL; FAILS=$((FAILS + 1)) ;; *) verdict=$4 ;; esac
  printf '%-58s %-12s %-10s %s\n' "$1" "$2" "$3" "$verdict"
}

# load_targets LABEL PRE POST: the target rows of a load benchmark for rangetap and
# rangetap-nobodies, >= 0.8x nginx-proxy and >= 5x mitm, from the medians in the caller's
# associative array MED["PRE<config>,POST"]; with MITM_REASON set the mitm rows say "not run".
# A last row (no verdict) says how nginx-proxy itself stands against mitm: where it moves less
# than 5x mitm, that target asks rangetap to be faster than the reverse proxy it is held to.
load_targets() {
  local label=$1 pre=$2 post=$3 cfg x
  for cfg in rangetap rangetap-nobodies; do
    x=$(ratio "${MED[$pre$cfg,$post]}" "${MED[${pre}nginx-proxy,$post]}")
    target_row "$label $cfg / nginx-proxy (req/s, medians)" "${x}x" ">= 0.8x" "$(ge "$x" 0.8)"
    if [[ -n $MITM_REASON ]]; then
      target_row "$label $cfg / mitm (req/s, medians)" "-" ">= 5x" "not run: $MITM_REASON"
    else
      x=$(ratio "${MED[$pre$cfg,$post]}" "${MED[${pre}mitm,$post]}")
      target_row "$label $cfg / mitm (req/s, medians)" "${x}x" ">= 5x" "$(ge "$x" 5)"
    fi
  done
  # What the two targets ask of each other in this run: 5x mitm is reachable at or under the
  # reverse proxy's own rate only when nginx-proxy itself moves at least 5x mitm.
  if [[ -z $MITM_REASON ]]; then
    x=$(ratio "${MED[${pre}nginx-proxy,$post]}" "${MED[${pre}mitm,$post]}")
    target_row "$label nginx-proxy / mitm (the reverse proxy itself)" "${x}x" "info" \
      "$(awk -v x="$x" 'BEGIN { if (x == "-") print "-"; else if (x + 0 >= 5) print "5x mitm is under nginx-proxy"; else printf "5x mitm = %.2fx nginx-proxy", 5 / x }')"
  fi
}

# release_binary: sets BIN to $RANGETAP when given, else builds the binary tools/install.sh and
# the .deb ship (`release_build` of tools/release-build.sh) in $REPO_DIR and uses it, so that
# memory figures are those of what users run; dies when there is no binary.
release_binary() {
  if [[ -n ${RANGETAP:-} ]]; then
    BIN=$RANGETAP
  else
    log "building release (swift build -c release --product rangetap --static-swift-stdlib)"
    # shellcheck source=tools/release-build.sh
    . "$REPO_DIR/tools/release-build.sh"
    BIN=$(release_build "$REPO_DIR") || die "release build failed"
  fi
  [[ -x $BIN ]] || die "no rangetap binary at $BIN"
}

# Processes: STARTED holds the PIDs the script started; only these are ever signalled.
STARTED=()
forget() {
  local p keep=()
  for p in "${STARTED[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  STARTED=("${keep[@]}")
}
# stop PID SIGNAL SECONDS: signal, wait at most SECONDS for the exit, then SIGKILL. Sets STOP_RC.
STOP_RC=0
stop() {
  local pid=$1 sig=$2 secs=$3 i exited=0
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    # Gone, or a zombie: it exited. (Asking again after the loop raced with bash reaping the
    # zombie in between, and then "did not exit" was logged and a reaped PID sent SIGKILL.)
    if ! kill -0 "$pid" 2>/dev/null || [[ $(ps -o stat= -p "$pid" 2>/dev/null) == Z* ]]; then
      exited=1
      break
    fi
    sleep 0.1
  done
  if ((!exited)); then
    log "pid $pid did not exit $secs s after SIG$sig: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  STOP_RC=0
  wait "$pid" 2>/dev/null || STOP_RC=$?
  forget "$pid"
}
# stop_on_exit: on exit, stops every PID still in STARTED and removes the temp dir $T
# (kept with BENCH_KEEP_TMP=1); Ctrl-C exits 130 through it.
stop_on_exit() {
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

# nginx_conf NAME PORT HTTP_EXTRA LOCATION_BODY: writes $T/NAME/nginx.conf, a foreground nginx
# serving $T/www on 127.0.0.1:PORT with long keep-alive and no access log. NGINX_MAIN holds the
# main-context directives (default `worker_processes 1;`), NGINX_CONNECTIONS worker_connections
# (default 1024).
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
# start_nginx NAME PORT: starts $NGINX with $T/NAME/nginx.conf, waits for PORT; sets NGINX_STARTED_PID.
start_nginx() {
  "$NGINX" -c "$T/$1/nginx.conf" -p "$T/$1" -e "$T/$1/error.log" >"$T/$1/out.log" 2>&1 &
  NGINX_STARTED_PID=$!
  STARTED+=("$NGINX_STARTED_PID")
  wait_port "$2" || { cat "$T/$1/out.log" "$T/$1/error.log" >&2; die "nginx ($1) did not start"; }
}

# install_missing PKG...: installs the given Debian packages with apt-get (as root); needs `log`
# and `die`. Does nothing without arguments.
install_missing() {
  (($#)) || return 0
  log "installing missing packages: $*"
  apt-get update -qq || die "apt-get update failed (installing $* needs root)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 ||
    die "could not install $*"
}

# ab_binaries USAGE BIN [BIN]: the binaries of an A/B benchmark: sets BINS to them and NAMES to
# "baseline" and, with two, "candidate"; dies with USAGE unless there are one or two executables.
ab_binaries() {
  local usage=$1 b
  shift
  (($# >= 1 && $# <= 2)) || die "usage: $usage"
  BINS=("$1")
  NAMES=(baseline)
  [[ $# == 2 ]] && { BINS+=("$2"); NAMES+=(candidate); }
  for b in "${BINS[@]}"; do [[ -x $b ]] || die "not an executable: $b"; done
}

# need_origin_tools [PKG...]: installs with apt-get (as root) what serves and fetches the
# benchmarks' files when missing (nginx-light, curl, python3), together with the packages given
# (the caller's own missing ones: one apt-get run for all), then sets NGINX; needs `log` and `die`.
need_origin_tools() {
  local need_pkgs=("$@")
  [[ -x /usr/sbin/nginx ]] || command -v nginx >/dev/null 2>&1 || need_pkgs+=(nginx-light)
  command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
  command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3 python3-venv)
  install_missing "${need_pkgs[@]}"
  NGINX=/usr/sbin/nginx; [[ -x $NGINX ]] || NGINX=$(command -v nginx)
}

# need_load_tools: need_origin_tools and wrk, which the load benchmarks drive; sets NGINX and WRK.
need_load_tools() {
  local extra=()
  command -v wrk >/dev/null 2>&1 || extra+=(wrk)
  need_origin_tools "${extra[@]}"
  WRK=$(command -v wrk) || die "wrk is missing (apt-get install -y wrk)"
}

# h2_bench_setup NAME: what the HTTP/2 memory benchmarks (bench-h2-stall.sh, bench-memory.sh)
# share: openssl, pip and the Python h2 package installed when missing, the release binary (BIN,
# release_binary), and a temp dir T, removed at exit, holding www/big.bin (256 MiB of zeros) and
# a self-signed certificate for localhost (cert.pem, key.pem).
h2_bench_setup() {
  local need_pkgs=()
  command -v openssl >/dev/null 2>&1 || need_pkgs+=(openssl)
  python3 -m pip --version >/dev/null 2>&1 || need_pkgs+=(python3-pip)
  need_origin_tools "${need_pkgs[@]}"
  python3 -c 'import h2' >/dev/null 2>&1 || python3 -m pip install -q h2 >&2 || die "the Python h2 package is missing (pip install h2)"
  release_binary
  T=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-$1.XXXXXX")
  stop_on_exit
  mkdir -p "$T/www"
  head -c $((256 << 20)) /dev/zero >"$T/www/big.bin"
  chmod a+rx "$T" "$T/www"
  chmod a+r "$T/www/big.bin"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" \
    -days 2 -subj /CN=localhost -addext "subjectAltName=DNS:localhost" >"$T/openssl.log" 2>&1 ||
    die "openssl could not make a certificate: $(cat "$T/openssl.log")"
}
