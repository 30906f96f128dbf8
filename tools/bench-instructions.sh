#!/usr/bin/env bash
# bench-instructions.sh — instructions rangetap executes per request and per fresh connection,
# counted by valgrind's callgrind: an A/B of two binaries that the machine's noise cannot move.
#
#   tools/bench-instructions.sh BASELINE_BIN [CANDIDATE_BIN]
#
# A private nginx (one worker) serves a 16 KiB file of random bytes on 127.0.0.1. Each binary in
# turn runs `record` (a forward proxy, with bodies) under `valgrind --tool=callgrind` (prepared by
# `valgrind_prepare`, tools/lib.sh: a copy without debug sections and a sigsuspend shim, valgrind
# 3.19's workarounds), takes 30 GETs, then the counters are zeroed (`callgrind_control -z`) and
# it serves, for each mode, 100 GETs of the file:
#   fresh       sequential curl processes, each a new connection to the proxy (the upstream
#               connection is reused: what a new client connection costs rangetap)
#   keep-alive  one curl process, every GET on the same connection
# after which the counters are dumped (`callgrind_control -d`). Printed per mode: instructions
# (callgrind's Ir, every thread) per request, their difference (what the connection's accept,
# set-up and close cost), and the candidate/baseline ratio.
#
# BENCH_SCHEME=https: the same over TLS. nginx serves the file over HTTPS (a test CA made for the
# run), curl reaches it through an intercepted CONNECT (`--ca-dir`, `--upstream-cacert`): a fresh
# connection is then a CONNECT and a TLS handshake with rangetap (the leaf minted during the
# warm-up), a kept-alive one a GET inside one tunnel; what is counted includes the encryption of
# each response's 16 KiB.
#
# Under callgrind the CPU has no SHA extensions, so SHA-256 takes its AVX path (about half of a
# request's instructions at 16 KiB): compare builds with it, not with a real CPU's profile. Runs
# are repeatable to about 0.2 %; each binary is run BENCH_ROUNDS times and the median printed.
#
# Knobs: BENCH_ROUNDS (1), BENCH_SCHEME (http or https), BENCH_KEEP_TMP=1, BENCH_TMPDIR. Needs valgrind, nginx, curl, python3,
# binutils, gcc (installed with apt-get when missing, as root). Exit 0, or 2 when it cannot run.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-instructions

ab_binaries "tools/bench-instructions.sh BASELINE_BIN [CANDIDATE_BIN]" "$@"
N=100 WARMUP=30 ROUNDS=${BENCH_ROUNDS:-1} SCHEME=${BENCH_SCHEME:-http}
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 9 ]] || die "BENCH_ROUNDS must be 1..9"
[[ $SCHEME == http || $SCHEME == https ]] || die "BENCH_SCHEME must be http or https, not '$SCHEME'"
need=()
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
command -v objcopy >/dev/null 2>&1 || need+=(binutils)
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
need_origin_tools "${need[@]}"
mkdir -p "$T/www"
head -c 16384 /dev/urandom >"$T/www/16k.bin"
ORIGIN=$(free_port)
servers="" RECORD_ARGS=() CURL_ARGS=()
URL="http://127.0.0.1:$ORIGIN/16k.bin"
if [[ $SCHEME == https ]]; then
  TLS=$(free_port)
  tls_origin
  servers=$(tls_server "$TLS ssl")
  URL="https://127.0.0.1:$TLS/16k.bin"
  RECORD_ARGS=(--ca-dir "$T/rtca" --upstream-cacert "$ORIGIN_CA")
  CURL_ARGS=(--http1.1 --cacert "$T/rtca/rangetap-ca.pem")
fi
nginx_conf origin "$ORIGIN" "$servers" ""
start_nginx origin "$ORIGIN"

[[ $SCHEME == http ]] || "${BINS[0]}" ca init --ca-dir "$T/rtca" >"$T/ca.log" 2>&1 || die "rangetap ca init failed: $(cat "$T/ca.log")"
for i in "${!BINS[@]}"; do
  mkdir -p "$T/${NAMES[$i]}"
  valgrind_prepare "${BINS[$i]}" "$T/${NAMES[$i]}" || die "could not prepare ${BINS[$i]} for valgrind"
done

# total FILE: callgrind's instruction total in a dump.
total() { awk '/^summary:/ { print $2; exit }' "$1"; }

# dump PID TAG: writes the counters since the last zeroing to a dump and prints its total.
dump() {
  local before after f
  before=$(ls "$T"/cg.out.* 2>/dev/null | wc -l)
  callgrind_control -d "$2" "$1" >/dev/null 2>&1 || die "callgrind_control -d failed"
  for _ in $(seq 1 100); do
    after=$(ls "$T"/cg.out.* 2>/dev/null | wc -l)
    ((after > before)) && break
    sleep 0.1
  done
  f=$(ls -t "$T"/cg.out.*.* | head -1)
  total "$f"
}

# run NAME ROUND: one binary under callgrind; appends "name round mode instructions_per_request".
run() {
  local name=$1 round=$2 port pid urls=() k fresh keep
  port=$(free_port)
  rm -rf "$T/cap.rtap" "$T"/cg.out.*
  spawn "$T/record.log" env LD_PRELOAD="$T/$name/sigsuspend-copy.so" valgrind --tool=callgrind --callgrind-out-file="$T/cg.out.%p" \
    "$T/$name/rangetap" record --listen "127.0.0.1:$port" -o "$T/cap.rtap" "${RECORD_ARGS[@]}"
  pid=$SPAWNED
  listening "$port" "$pid" 300 || die "rangetap under valgrind did not listen: $(tail -n 5 "$T/record.log")"
  for ((k = 0; k < WARMUP; k++)); do curl -s -o /dev/null "${CURL_ARGS[@]}" -x "http://127.0.0.1:$port" "$URL"; done
  sleep 0.5
  callgrind_control -z "$pid" >/dev/null 2>&1 || die "callgrind_control -z failed"
  for ((k = 0; k < N; k++)); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "${CURL_ARGS[@]}" -x "http://127.0.0.1:$port" "$URL") == 200 ]] || die "a fresh-connection GET did not get 200"
  done
  sleep 0.5
  fresh=$(dump "$pid" fresh)
  callgrind_control -z "$pid" >/dev/null 2>&1 || die "callgrind_control -z failed"
  for ((k = 0; k < N; k++)); do urls+=(-o /dev/null "$URL"); done
  [[ $(curl -s -w '%{http_code}\n' "${CURL_ARGS[@]}" -x "http://127.0.0.1:$port" "${urls[@]}" | grep -c '^200$') == "$N" ]] || die "a keep-alive GET did not get 200"
  sleep 0.5
  keep=$(dump "$pid" keepalive)
  stop "$pid" INT 60
  printf '%s %s fresh %s\n' "$name" "$round" "$((fresh / N))" >>"$T/rows"
  printf '%s %s keep-alive %s\n' "$name" "$round" "$((keep / N))" >>"$T/rows"
}

: >"$T/rows"
for ((round = 1; round <= ROUNDS; round++)); do
  for i in "${!BINS[@]}"; do
    log "round $round/$ROUNDS: ${NAMES[$i]} ($N fresh connections, then $N GETs on one)"
    run "${NAMES[$i]}" "$round"
  done
done

echo "# bench-instructions: callgrind Ir per 16 KiB $SCHEME GET through record (forward proxy, bodies), $N requests per mode, median of $ROUNDS; valgrind $(valgrind --version | sed 's/valgrind-//')"
for i in "${!BINS[@]}"; do echo "# ${NAMES[$i]}: ${BINS[$i]}"; done
python3 - "$T/rows" "${NAMES[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
def med(name, mode):
    return round(statistics.median(int(r[3]) for r in rows if r[0] == name and r[2] == mode))
fig = {n: {m: med(n, m) for m in ("fresh", "keep-alive")} for n in names}
for n in names:
    fig[n]["connection"] = fig[n]["fresh"] - fig[n]["keep-alive"]
print(f"  {'instructions per request':<28}" + "".join(f"{n:>14}" for n in names) + ("       ratio" if len(names) == 2 else ""))
for m, label in (("fresh", "fresh connection"), ("keep-alive", "kept-alive connection"), ("connection", "a connection's own cost")):
    line = f"  {label:<28}" + "".join(f"{fig[n][m]:>14,}" for n in names)
    if len(names) == 2 and fig[names[0]][m]:
        line += f"  {fig[names[1]][m] / fig[names[0]][m]:>10.3f}"
    print(line)
PY
