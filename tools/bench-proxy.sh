#!/usr/bin/env bash
# bench-proxy.sh — throughput / memory / latency benchmark for the rangetap
# recording proxy, reported as ratios against baselines measured in the SAME run
# on the SAME machine (absolute numbers are meaningless across machines).
#
# Everything runs on 127.0.0.1 against a private nginx (sendfile on) started by
# this script from a generated config in a temp dir. Configurations:
#   direct            curl -> nginx                                (baseline)
#   socat             curl -> socat -b 256k TCP relay -> nginx     (ceiling for user-space copying)
#   rangetap-meta     rangetap record --no-bodies                  (HTTP forward proxy)
#   rangetap-bodies   rangetap record (bodies captured to disk)
#   tinyproxy         tinyproxy (C, forking/threaded forward proxy) (reference proxy)
#   mitm-stream       mitmdump --set stream_large_bodies=1         (reference proxy, streaming)
#   mitm-buffer       mitmdump default (buffers whole body)        (throughput row only, curl --max-time 120)
#
# Measurements:
#   1. MB/s (10^6 bytes/s, curl %{speed_download}) of a full GET of a BENCH_SIZE_MB file,
#      BENCH_ROUNDS alternating rounds (order rotated each round), median per configuration;
#      proxy peak RSS (process tree, VmRSS sampled every 100 ms + VmHWM of the main process);
#      nginx $body_bytes_sent of each transfer must equal the file size (sanity check).
#   2. TTFB (%{time_starttransfer}) of a 1 MiB file, 20 sequential fresh connections, median;
#      "added" = median(config) - median(direct).
#   3. The same with 50 concurrent clients (50 curl processes released together), median.
#
# TARGETS for rangetap (checked and printed as PASS/FAIL at the end):
#   rangetap-meta   MB/s >= 80% of socat
#   rangetap-bodies MB/s >= 60% of socat
#   peak RSS        < 64 MiB (both rangetap configurations, full transfer and 50-concurrent phase)
#   added TTFB      < 1.5 ms vs direct (sequential 1 MiB requests)
#
# Run it on an otherwise idle machine (a compile on the same cores skews everything); the
# 50-concurrent direct baseline mostly measures curl start-up on the client side, so read that
# column as "extra delay the proxy adds under a burst", not as an absolute latency.
#
# Usage:
#   tools/bench-proxy.sh                        # full run, 1 GiB file, 3 rounds
#   BENCH_SIZE_MB=64 BENCH_ROUNDS=1 BENCH_SKIP_RANGETAP=1 tools/bench-proxy.sh   # quick smoke run
# Environment:
#   BENCH_SIZE_MB (1024)  size of the big file        BENCH_ROUNDS (3)     throughput rounds
#   RANGETAP              rangetap binary (default <repo>/.build/release/rangetap; built with
#                         `swift build -c release` if missing and RANGETAP is unset)
#   BENCH_SKIP_RANGETAP=1 skip rangetap rows          BENCH_SKIP_MITM=1    skip mitmproxy rows
#   BENCH_OUT=FILE        also write the report (table + raw figures) to FILE
#   BENCH_TMPDIR (/tmp)   where the temp dir (big file, captures) goes
#   BENCH_KEEP_TMP=1      keep the temp dir (logs) after the run
#   BENCH_CURL_MAX_TIME (600)  per-transfer time limit for the big GET
# Progress goes to stderr; the report goes to stdout.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)

SIZE_MB=${BENCH_SIZE_MB:-1024}
ROUNDS=${BENCH_ROUNDS:-3}
SKIP_RT=${BENCH_SKIP_RANGETAP:-0}
SKIP_MITM=${BENCH_SKIP_MITM:-0}
CURL_MAX=${BENCH_CURL_MAX_TIME:-600}
MITM_BUFFER_MAX=120
SEQ_N=20
CONC_N=50
VENV="$SCRIPT_DIR/.venv"

[[ $SIZE_MB =~ ^[0-9]+$ && $SIZE_MB -ge 2 ]] || { echo "BENCH_SIZE_MB must be an integer >= 2" >&2; exit 2; }
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 50 ]] || { echo "BENCH_ROUNDS must be 1..50" >&2; exit 2; }

# The proxies and curl must not pick up any proxy settings from the environment.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- packages
need_pkgs=()
[[ -x /usr/sbin/nginx ]] || command -v nginx >/dev/null 2>&1 || need_pkgs+=(nginx-light)
command -v socat >/dev/null 2>&1 || need_pkgs+=(socat)
[[ -x /usr/bin/tinyproxy ]] || command -v tinyproxy >/dev/null 2>&1 || need_pkgs+=(tinyproxy)
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3 python3-venv)
if ((${#need_pkgs[@]})); then
  log "installing missing packages: ${need_pkgs[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need_pkgs[@]}"
fi
NGINX=/usr/sbin/nginx; [[ -x $NGINX ]] || NGINX=$(command -v nginx)
TINYPROXY=/usr/bin/tinyproxy; [[ -x $TINYPROXY ]] || TINYPROXY=$(command -v tinyproxy)

# ---------------------------------------------------------------- rangetap binary
RT_BIN=""
if [[ $SKIP_RT != 1 ]]; then
  if [[ -n ${RANGETAP:-} ]]; then
    RT_BIN=$RANGETAP
    [[ -x $RT_BIN ]] || die "RANGETAP=$RT_BIN is not an executable"
  else
    RT_BIN="$REPO_DIR/.build/release/rangetap"
    if [[ ! -x $RT_BIN ]]; then
      log "building rangetap (swift build -c release)"
      swift build -c release --package-path "$REPO_DIR" >&2
    fi
    [[ -x $RT_BIN ]] || die "no rangetap binary at $RT_BIN"
  fi
fi

# ---------------------------------------------------------------- mitmproxy venv
MITM_SKIP_REASON=""
MITMDUMP="$VENV/bin/mitmdump"
if [[ $SKIP_MITM == 1 ]]; then
  MITM_SKIP_REASON="BENCH_SKIP_MITM=1"
elif [[ ! -x $MITMDUMP ]]; then
  log "installing mitmproxy into $VENV"
  pip_log=$(mktemp)
  if { [[ -x $VENV/bin/pip ]] || python3 -m venv "$VENV"; } >"$pip_log" 2>&1 &&
     "$VENV/bin/pip" install mitmproxy >>"$pip_log" 2>&1 && [[ -x $MITMDUMP ]]; then
    :
  else
    MITM_SKIP_REASON=$(grep -E 'ERROR|Error|error' "$pip_log" | tail -n 1 || true)
    [[ -n $MITM_SKIP_REASON ]] || MITM_SKIP_REASON=$(tail -n 1 "$pip_log" || true)
    [[ -n $MITM_SKIP_REASON ]] || MITM_SKIP_REASON="unknown error"
  fi
  rm -f "$pip_log"
fi
if [[ $SKIP_MITM == 1 ]]; then
  echo "skipped: mitmproxy rows (BENCH_SKIP_MITM=1)"
elif [[ -n $MITM_SKIP_REASON ]]; then
  echo "skipped: mitmproxy could not be installed: $MITM_SKIP_REASON"
fi

# ---------------------------------------------------------------- temp dir / cleanup
T=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/bench-proxy.XXXXXX")
PIDS=()          # every background process this script starts
NGINX_PID=""

pid_alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }

# forget a reaped pid so that cleanup never signals a recycled pid
untrack() {
  local p keep=()
  for p in "${PIDS[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  PIDS=("${keep[@]}")
}

# direct and indirect children of a pid (bounded depth), e.g. socat's per-connection forks
descendants() {
  local frontier=("$1") next d depth
  for ((depth = 0; depth < 4 && ${#frontier[@]}; depth++)); do
    next=()
    for d in "${frontier[@]}"; do
      while read -r c; do [[ -n $c ]] && next+=("$c"); done < <(ps -o pid= --ppid "$d" 2>/dev/null || true)
    done
    ((${#next[@]})) && printf '%s\n' "${next[@]}"
    frontier=("${next[@]}")
  done
  return 0
}

# stop_pid PID SIGNAL GRACE_TENTHS -> sets STOP_HOW to "signal" or "killed"
STOP_HOW=""
stop_pid() {
  local pid=$1 sig=${2:-TERM} grace=${3:-100} i kids=()
  STOP_HOW="gone"
  [[ -n $pid ]] || return 0
  mapfile -t kids < <(descendants "$pid")
  if pid_alive "$pid"; then
    kill "-$sig" "$pid" 2>/dev/null || true
    STOP_HOW="$sig"
    for ((i = 0; i < grace; i++)); do
      pid_alive "$pid" || break
      # a zombie child still answers kill -0; reap it if it has exited
      [[ $(ps -o stat= -p "$pid" 2>/dev/null || true) == Z* ]] && break
      sleep 0.1
    done
    if pid_alive "$pid" && [[ $(ps -o stat= -p "$pid" 2>/dev/null || true) != Z* ]]; then
      kill -KILL "$pid" 2>/dev/null || true
      STOP_HOW="KILL(after $sig)"
    fi
  fi
  wait "$pid" 2>/dev/null || true
  untrack "$pid"
  for k in "${kids[@]}"; do
    pid_alive "$k" && kill -TERM "$k" 2>/dev/null || true
  done
  return 0
}

cleanup() {
  local rc=$? p
  trap - EXIT INT TERM
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    p=${PIDS[i]}
    pid_alive "$p" && stop_pid "$p" TERM 30
  done
  if [[ ${BENCH_KEEP_TMP:-0} == 1 ]]; then
    log "kept temp dir $T"
  else
    rm -rf "$T"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_ports N: N distinct free TCP ports on 127.0.0.1
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()
PY
}

# wait_port PORT PID [TENTHS]: bounded poll until PORT accepts connections (PID must stay alive)
wait_port() {
  local port=$1 pid=$2 tries=${3:-300} i
  for ((i = 0; i < tries; i++)); do
    if [[ -n $pid ]] && ! pid_alive "$pid"; then return 2; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

# run_curl ARGS... -> CURL_OUT (the -w output), CURL_RC. curl runs in the background and is
# waited for, so that INT/TERM interrupt the script at once (cleanup then kills curl).
CURL_OUT=""; CURL_RC=0
run_curl() {
  local pid
  curl "$@" >"$T/curl.out" 2>/dev/null &
  pid=$!
  PIDS+=("$pid")
  CURL_RC=0
  wait "$pid" || CURL_RC=$?
  untrack "$pid"
  CURL_OUT=$(<"$T/curl.out")
}

median() { sort -g | awk '{a[NR]=$1} END{ if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2 }'; }

# ---------------------------------------------------------------- RSS sampler
cat >"$T/rss_sampler.py" <<'PY'
# rss_sampler.py ROOTPID OUTFILE INTERVAL MAXSECONDS
# Peak memory of a process tree: max over samples of sum(VmRSS) of root+descendants,
# and VmHWM of the root at the end; writes "peak_kb sum_rss_kb root_hwm_kb".
import os, signal, sys, time
root, out, interval, maxsec = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
peak_sum = 0
peak_hwm = 0

def status(pid):
    d = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    d[k] = int(v.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return d

def tree():
    kids = {}
    for e in os.listdir("/proc"):
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat") as f:
                s = f.read()
            ppid = int(s[s.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(e))
    res = [root]
    i = 0
    while i < len(res) and i < 10000:
        res.extend(kids.get(res[i], []))
        i += 1
    return res

def sample():
    global peak_sum, peak_hwm
    total = 0
    for p in tree():
        st = status(p)
        total += st.get("VmRSS", 0)
        if p == root:
            peak_hwm = max(peak_hwm, st.get("VmHWM", 0))
    peak_sum = max(peak_sum, total)

def dump(*_):
    try:
        sample()
    except Exception:
        pass
    with open(out + ".tmp", "w") as f:
        f.write(f"{max(peak_sum, peak_hwm)} {peak_sum} {peak_hwm}\n")
    os.replace(out + ".tmp", out)
    os._exit(0)

signal.signal(signal.SIGTERM, dump)
sample()
open(out + ".ready", "w").close()   # handler installed: safe to SIGTERM from now on
deadline = time.monotonic() + maxsec
while time.monotonic() < deadline and os.path.exists(f"/proc/{root}"):
    sample()
    time.sleep(interval)
dump()
PY

SAMPLER_PID=""; SAMPLER_OUT=""
start_sampler() {  # start_sampler ROOTPID OUTFILE
  SAMPLER_OUT=$2
  local i
  rm -f "$SAMPLER_OUT" "$SAMPLER_OUT.ready"
  python3 "$T/rss_sampler.py" "$1" "$SAMPLER_OUT" 0.1 3600 &
  SAMPLER_PID=$!
  PIDS+=("$SAMPLER_PID")
  for ((i = 0; i < 100; i++)); do   # bounded: at most ~5 s
    [[ -e $SAMPLER_OUT.ready || -s $SAMPLER_OUT ]] && break
    pid_alive "$SAMPLER_PID" || break
    sleep 0.05
  done
  return 0
}
SAMPLER_RESULT="-"
stop_sampler() {  # sets SAMPLER_RESULT to the peak in MiB (or "-")
  local i
  SAMPLER_RESULT="-"
  [[ -n $SAMPLER_PID ]] || return 0
  kill -TERM "$SAMPLER_PID" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    [[ -s $SAMPLER_OUT ]] && break
    [[ $(ps -o stat= -p "$SAMPLER_PID" 2>/dev/null || true) == "" || $(ps -o stat= -p "$SAMPLER_PID" 2>/dev/null || true) == Z* ]] && break
    sleep 0.1
  done
  stop_pid "$SAMPLER_PID" TERM 20
  SAMPLER_PID=""
  if [[ -s $SAMPLER_OUT ]]; then SAMPLER_RESULT=$(awk '{printf "%.1f", $1/1024}' "$SAMPLER_OUT"); fi
  return 0
}

# ---------------------------------------------------------------- data + nginx
WWW="$T/www"; mkdir -p "$WWW" "$T/nginx-tmp"
BIG_BYTES=$((SIZE_MB * 1024 * 1024))
SMALL_BYTES=$((1024 * 1024))
log "temp dir $T; creating ${SIZE_MB} MiB random file"
head -c "$BIG_BYTES" /dev/urandom >"$WWW/big.bin"
head -c "$SMALL_BYTES" /dev/urandom >"$WWW/small.bin"
cat "$WWW/big.bin" >/dev/null   # make sure it is in the page cache

read -r NGINX_PORT < <(free_ports 1)
nginx_V=$("$NGINX" -V 2>&1 || true)
temp_paths=""
for m in proxy fastcgi uwsgi scgi; do
  [[ $nginx_V == *"--without-http_${m}_module"* ]] || temp_paths+="    ${m}_temp_path $T/nginx-tmp/$m;"$'\n'
done
cat >"$T/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $T/nginx.pid;
error_log $T/nginx-error.log warn;
events { worker_connections 4096; }
http {
    log_format bench '\$request_uri \$status \$body_bytes_sent \$request_time';
    access_log $T/access.log bench;
    client_body_temp_path $T/nginx-tmp/body;
$temp_paths
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WWW;
        location / { }
    }
}
EOF
"$NGINX" -p "$T" -c "$T/nginx.conf" -e "$T/nginx-error.log" >"$T/nginx.out" 2>&1 &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
wait_port "$NGINX_PORT" "$NGINX_PID" 100 || { cat "$T/nginx.out" "$T/nginx-error.log" >&2 || true; die "nginx did not start"; }
log "nginx pid $NGINX_PID on 127.0.0.1:$NGINX_PORT"
ORIGIN="http://127.0.0.1:$NGINX_PORT"

# ---------------------------------------------------------------- proxy start/stop
# start_cfg CFG LABEL -> sets CFG_PID, CFG_URL (base URL to request), CFG_CURLARGS (array), CFG_STOPSIG, CFG_CAPTURE
CFG_PID=""; CFG_URL=""; CFG_CURLARGS=(); CFG_STOPSIG=TERM; CFG_CAPTURE=""
start_cfg() {
  local cfg=$1 label=$2 port rc=0
  CFG_PID=""; CFG_URL=$ORIGIN; CFG_CURLARGS=(); CFG_STOPSIG=TERM; CFG_CAPTURE=""
  [[ $cfg == direct ]] && return 0
  read -r port < <(free_ports 1)
  case $cfg in
    socat)
      socat -b 262144 "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "TCP:127.0.0.1:$NGINX_PORT" \
        >>"$T/socat.log" 2>&1 &
      CFG_URL="http://127.0.0.1:$port" ;;
    rangetap-meta|rangetap-bodies)
      local extra=() kind=${cfg#rangetap-}
      [[ $kind == meta ]] && extra=(--no-bodies)
      CFG_CAPTURE="$T/$kind-$label.rtap"
      rm -rf "$CFG_CAPTURE"
      echo "=== $label $(date +%T)" >>"$T/$cfg.log"
      "$RT_BIN" record --listen "127.0.0.1:$port" -o "$CFG_CAPTURE" "${extra[@]}" >>"$T/$cfg.log" 2>&1 &
      CFG_STOPSIG=INT ;;
    tinyproxy)
      cat >"$T/tinyproxy.conf" <<EOF
Port $port
Listen 127.0.0.1
Timeout 600
MaxClients 100
Syslog Off
LogFile "$T/tinyproxy.log"
LogLevel Warning
PidFile "$T/tinyproxy.pid"
DisableViaHeader Yes
EOF
      "$TINYPROXY" -d -c "$T/tinyproxy.conf" >>"$T/tinyproxy.out" 2>&1 & ;;
    mitm-stream|mitm-buffer)
      local extra=()
      [[ $cfg == mitm-stream ]] && extra=(--set stream_large_bodies=1)
      mkdir -p "$T/mitm-conf"
      "$MITMDUMP" --listen-host 127.0.0.1 -p "$port" "${extra[@]}" --set "confdir=$T/mitm-conf" -q \
        >>"$T/$cfg.log" 2>&1 & ;;
    *) die "unknown config $cfg" ;;
  esac
  CFG_PID=$!
  PIDS+=("$CFG_PID")
  [[ $cfg == socat ]] || CFG_CURLARGS=(-x "http://127.0.0.1:$port")
  wait_port "$port" "$CFG_PID" 300 || rc=$?
  if ((rc)); then
    if ((rc == 2)); then log "$cfg exited before listening on port $port; log tail:"
    else log "$cfg did not accept connections on port $port within 30 s; log tail:"; fi
    local logs=("$T/$cfg.log")
    [[ $cfg == tinyproxy ]] && logs=("$T/tinyproxy.out" "$T/tinyproxy.log")
    tail -n 5 "${logs[@]}" >&2 2>/dev/null || true
    stop_pid "$CFG_PID" KILL 10
    CFG_PID=""
    return 1
  fi
  return 0
}

stop_cfg() {  # stop_cfg CFG; sets STOP_HOW
  STOP_HOW="-"
  [[ -n $CFG_PID ]] || return 0
  local grace=100
  [[ $1 == rangetap-* ]] && grace=300
  stop_pid "$CFG_PID" "$CFG_STOPSIG" "$grace"
  CFG_PID=""
}

# nginx_bytes TAG: sum of $body_bytes_sent and count of log lines whose URI carries b=TAG (bounded wait)
nginx_bytes() {
  local tag=$1 i res
  for ((i = 0; i < 50; i++)); do
    res=$(awk -v t="b=$tag" '{ n = split($1, q, "?"); if (n > 1 && q[2] == t) { s += $3; c++ } } END { printf "%d %d", s, c }' "$T/access.log")
    [[ $res != *" 0" ]] && break
    sleep 0.1
  done
  echo "$res"
}

# ---------------------------------------------------------------- configuration list
CFGS=(direct socat)
[[ $SKIP_RT == 1 ]] || CFGS+=(rangetap-meta rangetap-bodies)
CFGS+=(tinyproxy)
[[ -n $MITM_SKIP_REASON ]] || CFGS+=(mitm-stream)
ALL_ROWS=("${CFGS[@]}")
[[ -n $MITM_SKIP_REASON ]] || ALL_ROWS+=(mitm-buffer)

declare -A SPEEDS TTFBBIG RSS RSS50 TTFB1 TTFB50 NOTE FAILS
for c in "${ALL_ROWS[@]}"; do SPEEDS[$c]=""; TTFBBIG[$c]=""; RSS[$c]="-"; RSS50[$c]="-"; TTFB1[$c]="-"; TTFB50[$c]="-"; NOTE[$c]=""; FAILS[$c]=0; done
RAW=()      # per-transfer raw lines
SANITY=()   # per-transfer body_bytes_sent check lines
SANITY_BAD=0

max_num() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-" || a == "") print b; else if (b == "-" || b == "") print a; else print (a+0 > b+0 ? a : b) }'; }
add_note() { [[ ${NOTE[$1]} == *"$2"* ]] || NOTE[$1]="${NOTE[$1]:+${NOTE[$1]}; }$2"; }

# big_round CFG ROUND LABEL MAXTIME
big_round() {
  local cfg=$1 round=$2 label=$3 maxt=$4 tag out rc=0 speed ttfb size code ttotal rss nb cnt capsz="-"
  tag="$cfg-$label"
  if ! start_cfg "$cfg" "$label"; then
    FAILS[$cfg]=$((${FAILS[$cfg]} + 1)); add_note "$cfg" "start failed"; return 0
  fi
  [[ -n $CFG_PID ]] && start_sampler "$CFG_PID" "$T/rss-$tag"
  log "big GET: $cfg round $round"
  run_curl -s -o /dev/null --max-time "$maxt" \
    -w '%{speed_download} %{time_starttransfer} %{size_download} %{http_code} %{time_total}' \
    "${CFG_CURLARGS[@]}" "$CFG_URL/big.bin?b=$tag"
  out=$CURL_OUT rc=$CURL_RC
  read -r speed ttfb size code ttotal <<<"$out"
  rss="-"
  if [[ -n $CFG_PID ]]; then stop_sampler; rss=$SAMPLER_RESULT; fi
  stop_cfg "$cfg"
  [[ $cfg == rangetap-* && $STOP_HOW == KILL* ]] && add_note "$cfg" "needed SIGKILL to stop"
  if [[ -n $CFG_CAPTURE ]]; then
    capsz=$(du -sb "$CFG_CAPTURE" 2>/dev/null | awk '{print $1}' || true); capsz=${capsz:--}
    rm -rf "$CFG_CAPTURE"
  fi
  read -r nb cnt <<<"$(nginx_bytes "$tag")"
  RSS[$cfg]=$(max_num "${RSS[$cfg]}" "$rss")
  if ((rc == 0)) && [[ $code == 200 && $size == "$BIG_BYTES" ]]; then
    SPEEDS[$cfg]+="$speed "
    TTFBBIG[$cfg]+="$ttfb "
  else
    if [[ $cfg == mitm-buffer ]]; then
      # expected to be slow: keep the partial figures, flag them
      SPEEDS[$cfg]+="$speed "; TTFBBIG[$cfg]+="$ttfb "
      ((rc == 28)) && add_note "$cfg" "curl timed out at ${maxt}s (partial figures)"
    else
      FAILS[$cfg]=$((${FAILS[$cfg]} + 1))
    fi
    add_note "$cfg" "transfer rc=$rc http=$code got=$size"
  fi
  local ok=OK
  [[ $nb == "$BIG_BYTES" ]] || { ok=MISMATCH; [[ $cfg == mitm-buffer && $rc == 28 ]] || SANITY_BAD=$((SANITY_BAD + 1)); }
  SANITY+=("$(printf '%-16s %-7s nginx_body_bytes_sent=%-12s upstream_requests=%-3s curl_bytes=%-12s capture_bytes=%-12s %s' \
              "$cfg" "r$round" "$nb" "$cnt" "$size" "$capsz" "$ok")")
  RAW+=("$(printf 'big %-16s %-4s MB/s=%-9s ttfb_s=%-9s total_s=%-9s rc=%s http=%s peakRSS_MiB=%s stop=%s' \
           "$cfg" "r$round" "$(awk -v s="${speed:-0}" 'BEGIN{printf "%.1f", s/1e6}')" "$ttfb" "$ttotal" "$rc" "$code" "$rss" "$STOP_HOW")")
  return 0
}

# conc_ttfb CFG N TAG OUTFILE -> writes the time_starttransfer values of the successful ones of N concurrent 1 MiB GETs
conc_ttfb() {
  local cfg=$1 n=$2 tag=$3 res=$4 dir fifo gofd i p pids=() bad=0
  dir="$T/conc-$tag"; mkdir -p "$dir"
  fifo="$dir/go"; mkfifo "$fifo"
  exec {gofd}<>"$fifo"     # held open read-write, so the clients' opens never block
  for ((i = 0; i < n; i++)); do
    (
      read -r -t 30 _ <"$fifo" || exit 1
      exec curl -s -o /dev/null --max-time 60 -w '%{time_starttransfer} %{http_code} %{size_download}' \
        "${CFG_CURLARGS[@]}" "$CFG_URL/small.bin?b=$tag-$i" >"$dir/$i.out" 2>/dev/null
    ) &
    pids+=($!); PIDS+=($!)
  done
  sleep 0.5                # let all clients block on the barrier
  printf '\n%.0s' $(seq "$n") >&"$gofd"   # release all of them at once
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || bad=$((bad + 1)); untrack "$p"; done
  exec {gofd}>&-
  : >"$res"
  for ((i = 0; i < n; i++)); do
    awk -v want="$SMALL_BYTES" '$2 == 200 && $3 == want { print $1 }' "$dir/$i.out" >>"$res" 2>/dev/null || true
  done
  ((bad == 0)) || add_note "$cfg" "$bad/$n concurrent requests failed"
  rm -rf "$dir"
}

ttfb_phase() {
  local cfg=$1 i out t code size seq=() conc=() rss rc
  if ! start_cfg "$cfg" ttfb; then
    add_note "$cfg" "start failed (ttfb)"; return 0
  fi
  [[ -n $CFG_PID ]] && start_sampler "$CFG_PID" "$T/rss-$cfg-ttfb"
  log "TTFB: $cfg ($SEQ_N sequential, $CONC_N concurrent)"
  # warm-up request (not counted)
  run_curl -s -o /dev/null --max-time 30 "${CFG_CURLARGS[@]}" "$CFG_URL/small.bin?b=$cfg-warm"
  local failed=0
  for ((i = 0; i < SEQ_N; i++)); do
    run_curl -s -o /dev/null --max-time 30 -w '%{time_starttransfer} %{http_code} %{size_download}' \
      "${CFG_CURLARGS[@]}" "$CFG_URL/small.bin?b=$cfg-s$i"
    out=$CURL_OUT rc=$CURL_RC
    read -r t code size <<<"$out"
    if ((rc == 0)) && [[ $code == 200 && $size == "$SMALL_BYTES" ]]; then seq+=("$t"); else failed=$((failed + 1)); fi
  done
  ((failed == 0)) || add_note "$cfg" "$failed/$SEQ_N sequential requests failed"
  conc_ttfb "$cfg" "$CONC_N" "$cfg-c" "$T/conc-$cfg.txt"
  mapfile -t conc <"$T/conc-$cfg.txt"
  rss="-"
  if [[ -n $CFG_PID ]]; then stop_sampler; rss=$SAMPLER_RESULT; fi
  stop_cfg "$cfg"
  if [[ -n $CFG_CAPTURE ]]; then rm -rf "$CFG_CAPTURE"; fi
  RSS50[$cfg]=$rss
  ((${#seq[@]})) && TTFB1[$cfg]=$(printf '%s\n' "${seq[@]}" | median | awk '{printf "%.3f", $1*1000}')
  ((${#conc[@]})) && TTFB50[$cfg]=$(printf '%s\n' "${conc[@]}" | median | awk '{printf "%.3f", $1*1000}')
  RAW+=("$(printf 'ttfb %-16s seq_ok=%s/%s seq_median_ms=%s conc_ok=%s/%s conc_median_ms=%s peakRSS_MiB=%s' \
           "$cfg" "${#seq[@]}" "$SEQ_N" "${TTFB1[$cfg]}" "${#conc[@]}" "$CONC_N" "${TTFB50[$cfg]}" "$rss")")
  return 0
}

# ---------------------------------------------------------------- run
T0=$(date +%s)
log "phase 1: full GET of ${SIZE_MB} MiB, $ROUNDS round(s), configs: ${CFGS[*]}"
n=${#CFGS[@]}
for ((r = 1; r <= ROUNDS; r++)); do
  for ((k = 0; k < n; k++)); do
    cfg=${CFGS[(k + r - 1) % n]}     # rotate the order every round
    big_round "$cfg" "$r" "r$r" "$CURL_MAX"
  done
done
if [[ -z $MITM_SKIP_REASON ]]; then
  log "mitm-buffer: one full GET with --max-time $MITM_BUFFER_MAX (expected to buffer the whole body)"
  big_round mitm-buffer 1 r1 "$MITM_BUFFER_MAX"
fi

log "phase 2+3: TTFB of 1 MiB ($SEQ_N sequential, $CONC_N concurrent)"
for cfg in "${CFGS[@]}"; do ttfb_phase "$cfg"; done
T1=$(date +%s)

# ---------------------------------------------------------------- report
med_of() { if [[ -n $1 ]]; then printf '%s\n' $1 | median; else echo nan; fi; }
declare -A MBPS TTFBBIG_MS
for c in "${ALL_ROWS[@]}"; do
  MBPS[$c]=$(med_of "${SPEEDS[$c]}" | awk '$1=="nan"{print "-"; next} {printf "%.1f", $1/1e6}')
  TTFBBIG_MS[$c]=$(med_of "${TTFBBIG[$c]}" | awk '$1=="nan"{print "-"; next} {printf "%.1f", $1*1000}')
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-" || b == "-" || b+0 == 0) print "-"; else printf "%.3f", a/b }'; }
diff_ms() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-" || b == "-") print "-"; else printf "%+.3f", a-b }'; }

report() {
  echo "# rangetap proxy benchmark  $(date -u +%Y-%m-%dT%H:%M:%SZ)  host=$(uname -n) cores=$(nproc) kernel=$(uname -r)"
  echo "# file=${SIZE_MB} MiB (${BIG_BYTES} B, random) rounds=$ROUNDS  small=1 MiB seq=$SEQ_N conc=$CONC_N  wall=$((T1 - T0))s"
  echo "# nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  $(socat -V 2>/dev/null | awk '/socat version/{print "socat " $3}')  $("$TINYPROXY" -v 2>&1 | head -n1)  $(curl --version | awk 'NR==1{print $1 " " $2}')"
  if [[ -n $MITM_SKIP_REASON ]]; then echo "# mitmproxy: skipped ($MITM_SKIP_REASON)"; else echo "# mitmproxy $("$MITMDUMP" --version 2>/dev/null | awk '/^Mitmproxy/{print $2}')"; fi
  if [[ $SKIP_RT == 1 ]]; then echo "# rangetap: skipped (BENCH_SKIP_RANGETAP=1)"; else echo "# rangetap $RT_BIN (repo $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$REPO_DIR" diff --quiet HEAD 2>/dev/null || echo '+dirty'))"; fi
  echo "# MB/s = 10^6 bytes/s median of rounds; x_direct/x_socat = MB/s ratios; peakRSS = proxy process tree during the full GET (max over rounds);"
  echo "# TTFB_big = time to first byte of the big GET; TTFB_1M = median of $SEQ_N sequential 1 MiB GETs; +TTFB = vs direct; +TTFB@50 = vs direct, $CONC_N concurrent; RSS@50 = peak RSS in the TTFB phase"
  printf '%-16s %9s %8s %8s %11s %11s %9s %9s %10s %9s  %s\n' \
    config MB/s x_direct x_socat peakRSS_MiB TTFB_big_ms TTFB_1M_ms +TTFB_ms +TTFB@50ms RSS@50MiB notes
  local c
  for c in "${ALL_ROWS[@]}"; do
    printf '%-16s %9s %8s %8s %11s %11s %9s %9s %10s %9s  %s\n' "$c" "${MBPS[$c]}" \
      "$(ratio "${MBPS[$c]}" "${MBPS[direct]}")" "$(ratio "${MBPS[$c]}" "${MBPS[socat]}")" \
      "${RSS[$c]}" "${TTFBBIG_MS[$c]}" "${TTFB1[$c]}" \
      "$(diff_ms "${TTFB1[$c]}" "${TTFB1[direct]}")" "$(diff_ms "${TTFB50[$c]}" "${TTFB50[direct]}")" \
      "${RSS50[$c]}" "${NOTE[$c]:-}$([[ ${FAILS[$c]} == 0 ]] || echo " [${FAILS[$c]} failed round(s)]")"
  done
  echo
  echo "# sanity: nginx \$body_bytes_sent per full transfer (must be ${BIG_BYTES})"
  printf '%s\n' "${SANITY[@]}"
  if ((SANITY_BAD)); then echo "# sanity: $SANITY_BAD MISMATCH(es)"; else echo "# sanity: all full transfers complete"; fi
  if [[ $SKIP_RT != 1 ]]; then
    echo
    echo "# targets (rangetap)"
    local v
    v=$(ratio "${MBPS[rangetap-meta]}" "${MBPS[socat]}");   echo "rangetap-meta   MB/s vs socat = $v  (target >= 0.80)  $(awk -v v="$v" 'BEGIN{print (v != "-" && v >= 0.80) ? "PASS" : "FAIL"}')"
    v=$(ratio "${MBPS[rangetap-bodies]}" "${MBPS[socat]}"); echo "rangetap-bodies MB/s vs socat = $v  (target >= 0.60)  $(awk -v v="$v" 'BEGIN{print (v != "-" && v >= 0.60) ? "PASS" : "FAIL"}')"
    for c in rangetap-meta rangetap-bodies; do
      v=$(max_num "${RSS[$c]}" "${RSS50[$c]}")
      echo "$c peak RSS = $v MiB  (target < 64)  $(awk -v v="$v" 'BEGIN{print (v != "-" && v < 64) ? "PASS" : "FAIL"}')"
      v=$(diff_ms "${TTFB1[$c]}" "${TTFB1[direct]}")
      echo "$c added TTFB = $v ms  (target < 1.5)  $(awk -v v="$v" 'BEGIN{print (v != "-" && v+0 < 1.5) ? "PASS" : "FAIL"}')"
    done
  fi
  echo
  echo "# raw"
  printf '%s\n' "${RAW[@]}"
}

if [[ -n ${BENCH_OUT:-} ]]; then
  report | tee "$BENCH_OUT"
else
  report
fi
