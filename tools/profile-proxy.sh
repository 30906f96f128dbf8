#!/usr/bin/env bash
# profile-proxy.sh — where `rangetap record` spends its instructions while it forwards one big
# plain-HTTP GET (issue 15). Everything runs on 127.0.0.1: a private nginx started here from a
# generated config in a temp dir serves a random file; rangetap records under
# `valgrind --tool=callgrind`; curl fetches the file once through it.
#
# Per mode (bodies = `rangetap record`, no-bodies = `rangetap record --no-bodies`):
#   1. start rangetap under callgrind, wait until it listens;
#   2. one warm-up GET of a 256 KiB file (first-request costs: Swift metadata and conformance
#      caches, libcurl handle set-up) that is not counted;
#   3. `callgrind_control -z` (zero the counters), the measured GET of the big file,
#      `callgrind_control -d` (dump): the profile holds the measured transfer and nothing else;
#   4. SIGINT to rangetap (its PID), bounded wait.
# Then prints, per mode: instructions (Ir) in total and per byte forwarded, the top functions by
# exclusive Ir, and the inclusive Ir of each suspect of issue 15.
#
# Callgrind counts user-space instructions of every thread of the process, deterministically
# (the same build and file give the same counts to a fraction of a percent on a loaded
# machine). It does not see kernel work (the copies inside write(2)/read(2)/sendfile) nor
# memory stalls, and valgrind's CPU has no SHA extensions, so BoringSSL takes its AVX SHA-256
# path even where the real CPU has SHA-NI (see docs/profile.md). PROFILE_PERF=1 adds a native
# `perf record -e cpu-clock` profile of the same transfer (kernel included) for that reason.
#
# Three valgrind 3.19 (Debian 12) workarounds, none touching rangetap's sources (the third is
# the calls=0 rewrite before callgrind_annotate, below):
#   * valgrind 3.19 cannot read the DWARF 5 parts of the binary: the profiled binary is a copy
#     with `objcopy --strip-debug` (swift-demangle makes the names readable);
#   * valgrind 3.19 writes into the signal mask passed to sigsuspend(2): a 6-line LD_PRELOAD
#     shim passes a copy of the mask instead (both made by `valgrind_prepare`, tools/lib.sh).
#
# Usage:
#   tools/profile-proxy.sh                          # 64 MiB, both modes
#   PROFILE_SIZE_MB=16 PROFILE_MODES=bodies PROFILE_KEEP=/tmp/prof tools/profile-proxy.sh
#   PROFILE_PERF=1 tools/profile-proxy.sh           # also a native perf profile of a 512 MiB GET
# Knobs: PROFILE_SIZE_MB (64), PROFILE_MODES ("bodies no-bodies"), PROFILE_PERF=1, PROFILE_KEEP=DIR
# (the callgrind files and annotations copied there), RANGETAP=BIN (else the release build: its
# symbol table names the functions), BENCH_TMPDIR. Progress on stderr, the report on stdout.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script profile-proxy

SIZE_MB=${PROFILE_SIZE_MB:-64} MODES=${PROFILE_MODES:-"bodies no-bodies"} PERF=${PROFILE_PERF:-0}
TOP=15 PERF_SIZE_MB=512
[[ $SIZE_MB =~ ^[0-9]+$ && $SIZE_MB -ge 1 && $SIZE_MB -le 4096 ]] || die "PROFILE_SIZE_MB must be 1..4096"
for m in $MODES; do [[ $m == bodies || $m == no-bodies ]] || die "PROFILE_MODES: bodies and/or no-bodies, not $m"; done
for tool in valgrind callgrind_annotate callgrind_control objcopy cc; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (apt-get install -y valgrind binutils gcc)"
done
need_origin_tools
if command -v swift-demangle >/dev/null 2>&1; then DEMANGLE=(swift-demangle --simplified); else DEMANGLE=(cat); fi
release_binary
RT_BIN=$BIN

# ---------------------------------------------------------------- valgrind workarounds
valgrind_prepare "$RT_BIN" "$T" || die "could not prepare $RT_BIN for valgrind (objcopy, cc)"

# ---------------------------------------------------------------- origin
mkdir -p "$T/www"
head -c $((SIZE_MB << 20)) /dev/urandom >"$T/www/big.bin"
head -c $((256 << 10)) /dev/urandom >"$T/www/warm.bin"
BIG_BYTES=$((SIZE_MB << 20))
NGINX_PORT=$(free_port)
NGINX_MAIN="master_process off;"
nginx_conf origin "$NGINX_PORT" "sendfile on;" ""
start_nginx origin "$NGINX_PORT"

# chunks CAPTURE EX: "N chunk events, mean SIZE B" of exchange EX (one body.bin write(2) each)
chunks() {
  awk -v ex="\"ex\":$2," 'index($0, "\"type\":\"chunk\"") && index($0, ex) { n++; if (match($0, /"size":[0-9]+/)) s += substr($0, RSTART + 7, RLENGTH - 7) }
       END { if (n) printf "%d chunk events, mean %.0f B", n, s / n; else print "no chunk events" }' "$1/events.jsonl"
}

# ---------------------------------------------------------------- report helpers
# sum_ir FILE: total Ir of a callgrind_annotate listing (the PROGRAM TOTALS line)
sum_ir() { awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$1"; }
# rows FILE: "Ir<TAB>function" lines of a demangled callgrind_annotate listing
rows() {
  awk '/^-+$/ { dash++; next } dash >= 6 && NF >= 2 && $1 ~ /^[0-9,]+$/ {
         ir = $1; gsub(",", "", ir); line = $0
         sub(/^ *[0-9,]+ +(\([ 0-9.]+%\) +)?/, "", line); print ir "\t" line }' "$1"
}
# max_incl FILE REGEX: largest inclusive Ir among functions matching REGEX (the outermost of a chain)
max_incl() { rows "$1" | awk -F'\t' -v re="$2" '$2 ~ re && $1 > m { m = $1 } END { printf "%.0f\n", m }'; }
# sum_excl FILE REGEX: exclusive Ir summed over functions matching REGEX (leaf functions)
sum_excl() { rows "$1" | awk -F'\t' -v re="$2" '$2 ~ re { s += $1 } END { printf "%.0f\n", s }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", 100 * a / b; else print "-" }'; }
per_byte() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
short_fn() { sed -E 's/^[^:]*:(.*)$/\1/; s/ \[[^]]*\/([^/]+)\]$/  [\1]/' | cut -c1-150; }

# The suspects of issue 15: label | how | regex on the demangled "file:function" text.
# incl = largest inclusive Ir of a matching function; excl = sum of exclusive Ir of the matches.
SUSPECTS=(
  "SHA-256 (writer thread, swift-crypto/BoringSSL)|incl|SHA256\\.update\\(bufferPointer:\\)|BCM_sha256_update"
  "body.bin write(2): the body writer closure minus hashing|body|closure #2 in CaptureWriter\\.run\\(\\)"
  "libc write()/writev(): user-space side only, every caller|excl|/(write|writev)\\.c:(write|writev) "
  "JSON encoding of events (CaptureEvent.jsonLine)|incl|jsonLine\\(\\)"
  "CaptureWriter.run() (whole writer thread)|incl|^[^ ]*:CaptureWriter\\.run\\(\\)"
  "libcurl write callback (curlWriteCallback)|incl|closure #1 in variable initialization expression of curlWriteCallback"
  "libcurl multi loop (CurlMulti.run, curl thread)|incl|:CurlMulti\\.run\\(\\)"
  "chunk hand-off to the event loop (Exchange.passOn + ExchangeDriver.pass)|incl|ExchangeDriver\\.pass\\(_:\\)"
  "NIO write path (ExchangeDriver.perform + ProxyHandler.writeBody: write and flush)|incl|ProxyHandler\\.writeBody\\(_:last:for:\\)"
  "NIO socket writes (BaseStreamSocketChannel.writeToSocket)|incl|BaseStreamSocketChannel\\.writeToSocket\\(\\)"
  "NIO event loop thread (SelectableEventLoop.run)|incl|SelectableEventLoop\\.run\\(\\)"
  "memcpy/memmove (exclusive)|excl|:(__)?(memcpy|memmove|mempcpy)[a-z_]*"
  "malloc/free (exclusive)|excl|:(_int_malloc|_int_free|malloc|free|cfree|calloc|realloc|malloc_consolidate|unlink_chunk[a-z._]*|tcache[a-z_]*|__libc_malloc|__libc_free) \\["
  "Swift ARC retain/release (exclusive)|excl|:swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease|nonatomic_retain|nonatomic_release)[a-z_]* \\["
  "Swift allocObject/deallocObject (exclusive)|excl|:swift_(allocObject|deallocObject|deallocClassInstance|slowAlloc|slowDealloc|allocBox|deallocBox) \\["
)

report_mode() {
  local mode=$1 ex=$2 in=$3 bytes=$4 total line label how re v sha
  total=$(sum_ir "$ex")
  echo
  echo "## $mode: $(printf "%'d" "$total") Ir for $bytes bytes forwarded = $(per_byte "$total" "$bytes") Ir/byte (measured GET only)"
  echo "# measured exchange: ${CHUNKS[$mode]}"
  echo
  echo "### top $TOP functions by exclusive Ir"
  printf '%16s %6s %7s  %s\n' Ir "%" Ir/byte function
  rows "$ex" | awk -v n="$TOP" 'NR <= n' | while IFS=$'\t' read -r v line; do
    printf '%16s %6s %7s  %s\n' "$(printf "%'d" "$v")" "$(pct "$v" "$total")" "$(per_byte "$v" "$bytes")" "$(short_fn <<<"$line")"
  done
  echo
  echo "### suspects (inclusive Ir unless marked exclusive)"
  printf '%16s %6s %7s  %s\n' Ir "%" Ir/byte suspect
  sha=$(max_incl "$in" "${SUSPECTS[0]#*|incl|}")
  for line in "${SUSPECTS[@]}"; do
    label=${line%%|*}; line=${line#*|}; how=${line%%|*}; re=${line#*|}
    case $how in
      incl) v=$(max_incl "$in" "$re") ;;
      excl) v=$(sum_excl "$ex" "$re") ;;
      body) v=$(max_incl "$in" "$re"); v=$((v > sha ? v - sha : 0)) ;;
    esac
    printf '%16s %6s %7s  %s\n' "$(printf "%'d" "$v")" "$(pct "$v" "$total")" "$(per_byte "$v" "$bytes")" "$label"
  done
}

# ---------------------------------------------------------------- callgrind runs
REPORTS=()
declare -A CHUNKS
for mode in $MODES; do
  port=$(free_port)
  out="$T/callgrind.$mode"
  flags=(); [[ $mode == no-bodies ]] && flags=(--no-bodies)
  log "$mode: starting rangetap under callgrind on 127.0.0.1:$port"
  spawn "$T/rangetap-$mode.log" env LD_PRELOAD="$T/sigsuspend-copy.so" valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$T/rangetap" record --listen "127.0.0.1:$port" -o "$T/cap-$mode.rtap" --ca-dir "$T/ca" "${flags[@]}"
  rt_pid=$SPAWNED
  listening "$port" "$rt_pid" 600 || die "$mode: rangetap did not listen: $(tail -n 5 "$T/rangetap-$mode.log")"
  curl -sS -x "http://127.0.0.1:$port" --max-time 300 -o /dev/null "http://127.0.0.1:$NGINX_PORT/warm.bin" ||
    die "$mode: warm-up GET failed"
  callgrind_control -z "$rt_pid" >/dev/null 2>&1 || die "$mode: callgrind_control -z failed"
  log "$mode: measured GET of $SIZE_MB MiB"
  got=$(curl -sS -x "http://127.0.0.1:$port" --max-time 900 -o /dev/null -w '%{size_download} %{time_total}' \
        "http://127.0.0.1:$NGINX_PORT/big.bin") || die "$mode: measured GET failed"
  [[ ${got%% *} == "$BIG_BYTES" ]] || die "$mode: got ${got%% *} bytes, expected $BIG_BYTES"
  log "$mode: $got (bytes, seconds under callgrind); dumping"
  callgrind_control -d "$rt_pid" >/dev/null 2>&1 || die "$mode: callgrind_control -d failed"
  stop "$rt_pid" INT 120
  dump=""
  for f in "$out".[0-9]*; do if [[ -f $f && ( -z $dump || $f -nt $dump ) ]]; then dump=$f; fi; done
  [[ -n $dump ]] || die "$mode: no callgrind dump"
  # Calls entered before the zeroing (thread entry frames) are dumped as "calls=0": callgrind_annotate
  # 3.19 then adds their inclusive cost to the caller's exclusive cost. Counted as one call, they
  # are not.
  sed 's/^calls=0 /calls=1 /' "$dump" >"$T/callgrind.$mode.fixed"
  callgrind_annotate --threshold=100 --auto=no "$T/callgrind.$mode.fixed" 2>/dev/null | "${DEMANGLE[@]}" >"$T/excl-$mode.txt"
  callgrind_annotate --threshold=100 --auto=no --inclusive=yes "$T/callgrind.$mode.fixed" 2>/dev/null | "${DEMANGLE[@]}" >"$T/incl-$mode.txt"
  CHUNKS[$mode]=$(chunks "$T/cap-$mode.rtap" 2)
  REPORTS+=("$mode|$T/excl-$mode.txt|$T/incl-$mode.txt")
  if [[ -n ${PROFILE_KEEP:-} ]]; then
    mkdir -p "$PROFILE_KEEP"
    cp "$T/callgrind.$mode.fixed" "$PROFILE_KEEP/callgrind.$mode.out"
    cp "$T/excl-$mode.txt" "$T/incl-$mode.txt" "$PROFILE_KEEP/"
  fi
  rm -rf "$T/cap-$mode.rtap"
done

# ---------------------------------------------------------------- native perf run (optional)
PERF_TXT=""
if [[ $PERF == 1 ]]; then
  if command -v perf >/dev/null 2>&1 && perf record -e cpu-clock -o "$T/perf-probe.data" true >/dev/null 2>&1; then
    head -c $((PERF_SIZE_MB << 20)) /dev/urandom >"$T/www/perf.bin"
    for mode in $MODES; do
      port=$(free_port)
      flags=(); [[ $mode == no-bodies ]] && flags=(--no-bodies)
      serve "$port" "$T/perf-rt-$mode.log" "$RT_BIN" record --listen "127.0.0.1:$port" -o "$T/perfcap-$mode.rtap" --ca-dir "$T/ca" "${flags[@]}" ||
        die "perf $mode: rangetap did not listen"
      rt_pid=$SPAWNED
      curl -sS -x "http://127.0.0.1:$port" -o /dev/null "http://127.0.0.1:$NGINX_PORT/warm.bin"
      spawn /dev/null perf record -e cpu-clock -F 2999 -p "$rt_pid" -o "$T/perf-$mode.data"
      perf_pid=$SPAWNED
      sleep 1
      log "perf $mode: native GET of $PERF_SIZE_MB MiB"
      curl -sS -x "http://127.0.0.1:$port" --max-time 300 -o /dev/null "http://127.0.0.1:$NGINX_PORT/perf.bin" || die "perf $mode: GET failed"
      stop "$perf_pid" INT 30
      stop "$rt_pid" INT 30
      pchunks=$(chunks "$T/perfcap-$mode.rtap" 2)
      perf report -i "$T/perf-$mode.data" --no-children --sort dso,sym --stdio 2>/dev/null |
        awk -v n="$TOP" '/^ +[0-9.]+%/ && ++k <= n' | "${DEMANGLE[@]}" | cut -c1-160 >"$T/perf-$mode.txt"
      pdso=$(perf report -i "$T/perf-$mode.data" --no-children --sort dso --stdio 2>/dev/null |
        awk '/^ +[0-9.]+%/ { printf "%s%s %s", (n++ ? ", " : ""), $2, $1 }')
      pcomm=$(perf report -i "$T/perf-$mode.data" --no-children --sort pid --stdio 2>/dev/null |
        awk '/^ +[0-9.]+%/ { $1 = $1; pc = $1; $1 = ""; sub(/^ /, ""); printf "%s%s %s", (n++ ? ", " : ""), $0, pc }')
      PERF_TXT+=$'\n'"## native perf, $mode, share of samples by object: $pdso"$'\n'
      PERF_TXT+="## native perf, $mode, share of samples by thread (tid:comm; writer and curl threads keep the name of the dispatch thread that started them): $pcomm"$'\n'
      PERF_TXT+=$'\n'"## native perf (cpu-clock samples, kernel included), $mode, $PERF_SIZE_MB MiB ($pchunks): top $TOP by self"$'\n'"$(cat "$T/perf-$mode.txt")"$'\n'
      rm -rf "$T/perfcap-$mode.rtap" "$T/perf-$mode.data"
    done
  else
    PERF_TXT=$'\n'"## native perf: perf record -e cpu-clock does not work here"$'\n'
  fi
fi

# ---------------------------------------------------------------- report
echo "# rangetap record under callgrind  $(date -u +%Y-%m-%dT%H:%M:%SZ)  host=$(uname -n) cores=$(nproc) kernel=$(uname -r)"
echo "# cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)  $(valgrind --version)  nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  $(curl --version | awk 'NR==1 { print $1 " " $2 }')"
echo "# rangetap $RT_BIN  repo HEAD $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# file: $SIZE_MB MiB random ($BIG_BYTES B), plain HTTP, curl -x -> rangetap -> nginx; counters zeroed after a warm-up GET"
for r in "${REPORTS[@]}"; do
  IFS='|' read -r mode ex in <<<"$r"
  report_mode "$mode" "$ex" "$in" "$BIG_BYTES"
done
[[ -z $PERF_TXT ]] || printf '%s' "$PERF_TXT"
