#!/usr/bin/env bash
# soak.sh — runs `rangetap record` for MINUTES (default 30) under mixed player traffic and
# samples its memory and descriptors, to show they stay flat.
#
# Builds release (unless RANGETAP names a binary), starts a private nginx and `rangetap record`
# on free 127.0.0.1 ports, and drives, in bounded loops until the time is up:
#   - the scripted players: `rangetap play --pattern avplayer|seeky|linear` (seeds vary);
#   - curl Range requests: 4 random ranges per keep-alive connection, plus open-ended ones;
#   - cancels: `curl … | head -c N` on a 64 MiB file (the client hangs up mid-body);
#   - a burst of 20 parallel curl range requests every 30 s, and a request for a missing file.
# Every 10 s it samples the proxy's VmRSS (/proc/PID/status) and its open descriptors
# (/proc/PID/fd), then prints first / last / max and a verdict: the mean of the last 5 minutes
# over the mean of the first 5 (a third of the run each for runs under 15 minutes). FLAT when
# RSS grew by at most 15 % and descriptors by at most 25 % (they include the connections in
# flight at the sample). It stops only the processes it started, by PID, then checks that
# `rangetap summary` reads the capture.
#
# Usage: tools/soak.sh [MINUTES]
# Environment:
#   RANGETAP=BIN       use this binary instead of building <repo>/.build/release/rangetap
#   SOAK_TMPDIR (/tmp) where the temp dir (files, capture, samples) goes
#   SOAK_KEEP_TMP=1    keep the temp dir afterwards (the capture grows by about 0.4 GB a minute)
#   SOAK_NO_BODIES=1   record with --no-bodies (timings and hashes only)
# Exit status: 0 flat, 1 not flat or the proxy died, 2 bad arguments or setup failure.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
. "$SCRIPT_DIR/bench-lib.sh"

MINUTES=${1:-30}
[[ $MINUTES =~ ^[0-9]+$ && $MINUTES -ge 1 && $MINUTES -le 1440 ]] || { echo "usage: soak.sh [MINUTES] (1..1440)" >&2; exit 2; }
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

log() { printf '[soak %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }

for tool in nginx curl python3; do
  command -v "$tool" >/dev/null 2>&1 || [[ -x /usr/sbin/$tool ]] || die "$tool is missing: run tools/install-deps.sh"
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

release_binary

TMP=$(mktemp -d "${SOAK_TMPDIR:-/tmp}/rangetap-soak.XXXXXX")
STARTED=()   # PIDs this script started, stopped by PID only
cleanup() {
  local pid
  for pid in "${STARTED[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${STARTED[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ ${SOAK_KEEP_TMP:-0} == 1 ]]; then log "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- peers
mkdir -p "$TMP/www"
head -c $((2 << 20)) /dev/urandom > "$TMP/www/player.bin"    # what the scripted players fetch
head -c $((64 << 20)) /dev/urandom > "$TMP/www/big.bin"      # ranges and cancels
NGINX_PORT=$(free_port)
write_nginx_conf "$TMP/nginx" "$NGINX_PORT" "$TMP/www" "keepalive_requests 100000;"
"$NGINX" -c "$TMP/nginx/nginx.conf" -p "$TMP/nginx" -e "$TMP/nginx/error.log" >/dev/null 2>&1 &
STARTED+=($!)
wait_port "$NGINX_PORT" || die "nginx did not start"

PROXY_PORT=$(free_port)
record_args=(record --listen "127.0.0.1:$PROXY_PORT" -o "$TMP/soak.rtap")
[[ ${SOAK_NO_BODIES:-0} == 1 ]] && record_args+=(--no-bodies)
"$BIN" "${record_args[@]}" 2>"$TMP/record.err" &
PROXY_PID=$!
STARTED+=("$PROXY_PID")
wait_port "$PROXY_PORT" || die "rangetap record did not start: $(tail -3 "$TMP/record.err")"
PROXY=http://127.0.0.1:$PROXY_PORT
ORIGIN=http://127.0.0.1:$NGINX_PORT
log "nginx $NGINX_PORT, rangetap record pid $PROXY_PID on $PROXY_PORT, $MINUTES min, temp $TMP"

END=$(( $(date +%s) + MINUTES * 60 ))
MAX_ITER=$(( MINUTES * 60 * 10 ))   # no loop runs more than 10 iterations a second on average
BIG=$((64 << 20))
C=(curl -s --noproxy '' -x "$PROXY" --max-time 30 -o /dev/null)

# ---------------------------------------------------------------- traffic (bounded loops)
players() {   # scripted players, patterns in turn
  local i=0 patterns=(avplayer seeky linear)
  while (( $(date +%s) < END && i < MAX_ITER )); do
    timeout 60 "$BIN" play "$ORIGIN/player.bin" --pattern "${patterns[i % 3]}" --proxy "$PROXY" --seed $((i + 1)) --chunk-bytes 128k >/dev/null 2>&1 || true
    i=$((i + 1)); sleep 1.5
  done
  echo "$i" > "$TMP/players.count"
}
ranges() {    # random closed ranges, 4 per connection, and an open-ended range read whole
  local i=0 a b args
  while (( $(date +%s) < END && i < MAX_ITER )); do
    args=()
    for _ in 1 2 3 4; do
      a=$(( (RANDOM * 32768 + RANDOM) % BIG )); b=$(( a + RANDOM * 8 ))
      args+=(-r "$a-$b" "$ORIGIN/big.bin" -o /dev/null)
    done
    curl -s --noproxy '' -x "$PROXY" --max-time 30 "${args[@]}" || true
    "${C[@]}" -r "$((BIG - (RANDOM * 16)))-" "$ORIGIN/big.bin" || true
    i=$((i + 1)); sleep 0.5
  done
  echo "$i" > "$TMP/ranges.count"
}
cancels() {   # the client hangs up mid-body
  local i=0
  while (( $(date +%s) < END && i < MAX_ITER )); do
    timeout 30 bash -c "curl -s --noproxy '' -x '$PROXY' -r $(( (RANDOM * 1024) % BIG ))- '$ORIGIN/big.bin' | head -c $(( RANDOM * 32 )) >/dev/null" || true
    i=$((i + 1)); sleep 1
  done
  echo "$i" > "$TMP/cancels.count"
}
bursts() {    # 20 parallel connections every 30 s, and a 404
  local i=0 k pids
  while (( $(date +%s) < END && i < MAX_ITER )); do
    pids=()
    for k in $(seq 1 20); do
      "${C[@]}" -r "$((k * 100000))-$((k * 100000 + 65535))" "$ORIGIN/big.bin" & pids+=($!)
    done
    for k in "${pids[@]}"; do wait "$k" || true; done
    "${C[@]}" "$ORIGIN/missing.bin" || true
    i=$((i + 1)); sleep 30
  done
  echo "$i" > "$TMP/bursts.count"
}
players & STARTED+=($!)
ranges & STARTED+=($!)
cancels & STARTED+=($!)
bursts & STARTED+=($!)

# ---------------------------------------------------------------- samples
SAMPLES=$TMP/samples.tsv
printf 'elapsed_s\trss_kib\tfds\n' > "$SAMPLES"
START=$(date +%s)
alive=1
while (( $(date +%s) < END )); do
  if [[ ! -d /proc/$PROXY_PID ]]; then alive=0; log "rangetap record (pid $PROXY_PID) is gone"; break; fi
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$PROXY_PID/status" 2>/dev/null || echo 0)
  fds=$( (ls "/proc/$PROXY_PID/fd" 2>/dev/null || true) | wc -l)
  printf '%d\t%d\t%d\n' $(( $(date +%s) - START )) "$rss" "$fds" >> "$SAMPLES"
  avail=$(df -Pk "$TMP" | awk 'NR == 2 {print $4}')
  if (( avail < 2 * 1024 * 1024 )); then log "less than 2 GiB free on $TMP: stopping early"; break; fi
  sleep 10
done
END=0   # the loops see it only through their own copy: wait for them to finish their iteration
for pid in "${STARTED[@]:2}"; do wait "$pid" 2>/dev/null || true; done

capture_size=$(du -sh "$TMP/soak.rtap" | cut -f1)
kill -INT "$PROXY_PID" 2>/dev/null || true
record_status=0
wait "$PROXY_PID" 2>/dev/null || record_status=$?
if summary_out=$("$BIN" summary "$TMP/soak.rtap" 2>&1); then summary_line=$(tail -1 <<<"$summary_out"); else summary_line="FAILED: $(tail -2 <<<"$summary_out")"; fi

# ---------------------------------------------------------------- report
python3 - "$SAMPLES" "$MINUTES" <<'PY' > "$TMP/report.txt"
import sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n")[1:] if l]
rows = [(int(a), int(b), int(c)) for a, b, c in rows]
minutes = int(sys.argv[2])
if len(rows) < 3:
    print("too few samples"); print("VERDICT NOT-FLAT"); sys.exit()
window = 300 if minutes >= 15 else max(10, minutes * 60 // 3)
end = rows[-1][0]
first = [r for r in rows if r[0] < window] or rows[:1]
last = [r for r in rows if r[0] > end - window] or rows[-1:]
def mean(xs): return sum(xs) / len(xs)
rss_ratio = mean([r[1] for r in last]) / max(1, mean([r[1] for r in first]))
fd_ratio = mean([r[2] for r in last]) / max(1, mean([r[2] for r in first]))
print(f"samples {len(rows)} over {end} s (every 10 s), windows of {window} s")
print(f"RSS  MiB: first {rows[0][1]/1024:.1f}  last {rows[-1][1]/1024:.1f}  max {max(r[1] for r in rows)/1024:.1f}  "
      f"mean first window {mean([r[1] for r in first])/1024:.1f}  mean last window {mean([r[1] for r in last])/1024:.1f}  ratio {rss_ratio:.3f}")
print(f"fds     : first {rows[0][2]}  last {rows[-1][2]}  max {max(r[2] for r in rows)}  "
      f"mean first window {mean([r[2] for r in first]):.1f}  mean last window {mean([r[2] for r in last]):.1f}  ratio {fd_ratio:.3f}")
flat = rss_ratio <= 1.15 and fd_ratio <= 1.25
print("VERDICT " + ("FLAT" if flat else "NOT-FLAT") + f" (RSS ratio {rss_ratio:.3f}, limit 1.15; fd ratio {fd_ratio:.3f}, limit 1.25)")
PY
{
  cat "$TMP/report.txt"
  echo "traffic: players $(cat "$TMP/players.count" 2>/dev/null || echo ?) runs, range rounds $(cat "$TMP/ranges.count" 2>/dev/null || echo ?), cancels $(cat "$TMP/cancels.count" 2>/dev/null || echo ?), bursts $(cat "$TMP/bursts.count" 2>/dev/null || echo ?)"
  echo "capture: $capture_size; record exit status $record_status; summary: $summary_line"
} | tee "$TMP/report.full.txt"
cp "$SAMPLES" "${SOAK_SAMPLES_OUT:-/dev/null}" 2>/dev/null || true
(( alive == 1 && record_status == 0 )) && grep -q 'VERDICT FLAT' "$TMP/report.txt"
