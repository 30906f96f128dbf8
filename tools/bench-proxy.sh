#!/usr/bin/env bash
# bench-proxy.sh — throughput, CPU per GiB, peak RSS and added time to first byte of rangetap
# against the least work a relay can do and against other proxies, all measured in the same run.
#
# A private nginx (one process, sendfile, tcp_nopush) serves a BENCH_SIZE_MB file and a 1 MiB
# file of random bytes on 127.0.0.1: over HTTP, and over TLS (a test CA made for the run) on a
# port that speaks HTTP/1.1 only and on one with `http2`. Rows per scheme (BENCH_SCHEMES):
#   http       direct (curl -> nginx); socat -b 262144 (a relay: copy only); hashrelay and
#              hashrelay-bodies (tools/hashrelay.c, built here: socat's relay plus SHA-256 of every
#              byte coming back, and with --bodies the append to a file: the least work of
#              recording); rangetap-meta (`record --no-bodies`) and rangetap-bodies (`record`) as
#              forward proxies; tinyproxy; mitm (mitmdump, stream_large_bodies=1)
#   https, h2  direct; rangetap-meta and rangetap-bodies intercepting CONNECT (`--ca-dir`,
#              `--upstream-cacert`); mitm intercepting. curl --http1.1 or --http2 (every transfer
#              must report that version)
# Each row is a fresh process per round, the order rotated per round:
#   MB/s       one GET of the big file (curl's speed_download, 10^6 B/s), median of the rounds;
#              against direct, and against socat (http) or mitm (https, h2)
#   CPU s/GiB  user + system CPU of the proxy (and of the children it reaped) during that GET
#   peak RSS   VmHWM of the proxy process (not for the forking relays: each connection is a child)
#   TTFB       median of 20 GETs of the 1 MiB file, each a new connection, each after one straight
#              to nginx; added = the proxy's median minus those direct GETs' (not for hashrelay)
# The header gives the machine's page-cache fill rate: every "bodies" row pays it for each byte.
# For http the report ends with rangetap against hashrelay and issue 15's targets (PASS/FAIL).
# socat, tinyproxy and mitmproxy rows run when they are installed, else say why not.
#
#   tools/bench-proxy.sh                    # 1 GiB, 3 rounds, http https h2
#   BENCH_QUICK=1 tools/bench-proxy.sh      # about a minute: http, 128 MiB, 10 TTFB pairs
# Knobs: RANGETAP=BIN (else the release build), BENCH_SIZE_MB (1024), BENCH_ROUNDS (3),
# BENCH_SCHEMES ("http https h2"), BENCH_QUICK=1, BENCH_INSTALL=1 (install missing socat,
# tinyproxy, mitmproxy), BENCH_KEEP_TMP=1, BENCH_TMPDIR. Report on stdout, progress on stderr.
# Exit status 0 when it ran, 2 when it could not.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-proxy

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  SIZE_MB=${BENCH_SIZE_MB:-128} SCHEMES=${BENCH_SCHEMES:-http} TTFB_N=10
else
  SIZE_MB=${BENCH_SIZE_MB:-1024} SCHEMES=${BENCH_SCHEMES:-http https h2} TTFB_N=20
fi
ROUNDS=${BENCH_ROUNDS:-3}
read -r -a SCHEMES <<<"$SCHEMES"
[[ $SIZE_MB =~ ^[0-9]+$ && $SIZE_MB -ge 2 && $SIZE_MB -le 8192 ]] || die "BENCH_SIZE_MB must be 2..8192"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 20 ]] || die "BENCH_ROUNDS must be 1..20"
((${#SCHEMES[@]})) || die "BENCH_SCHEMES is empty"
for s in "${SCHEMES[@]}"; do [[ $s =~ ^(http|https|h2)$ ]] || die "BENCH_SCHEMES: http, https and/or h2, not '$s'"; done

need=()
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
[[ -e /usr/include/openssl/evp.h ]] || need+=(libssl-dev)
need_origin_tools "${need[@]}"
release_binary
# A fresh copy: a binary whose cold pages the kernel reclaimed measures up to 2.5 MiB smaller than
# a fresh copy of itself (docs/performance.md, "Memory of the binary").
cp "$BIN" "$T/rangetap"
SOURCE=$BIN BIN=$T/rangetap
peer socat
SOCAT=$PEER SOCAT_WHY=$PEER_WHY
peer tinyproxy
TINYPROXY=$PEER TINYPROXY_WHY=$PEER_WHY
peer mitmdump
MITM=$PEER MITM_WHY=$PEER_WHY
HASHRELAY_WHY=""
cc -O2 -pthread -o "$T/hashrelay" "$BENCH_TOOLS/hashrelay.c" -lcrypto >"$T/hashrelay.cc.log" 2>&1 ||
  HASHRELAY_WHY="cc tools/hashrelay.c failed: $(head -n 2 "$T/hashrelay.cc.log" | tr '\n' ' ')"

BYTES=$((SIZE_MB << 20)) SMALL=$((1 << 20))
log "files: ${SIZE_MB} MiB and 1 MiB of random bytes in $T/www"
mkdir -p "$T/www"
head -c "$BYTES" /dev/urandom >"$T/www/big.bin"
head -c "$SMALL" /dev/urandom >"$T/www/small.bin"
ORIGIN=$(free_port) TLS=$(free_port) H2=$(free_port)
servers=""
if [[ " ${SCHEMES[*]} " == *" https "* || " ${SCHEMES[*]} " == *" h2 "* ]]; then
  tls_origin
  servers="$(tls_server "$TLS ssl") $(tls_server "$H2 ssl http2")"
fi
NGINX_MAIN="master_process off;" NGINX_CONNECTIONS=4096
nginx_conf origin "$ORIGIN" "sendfile on; tcp_nopush on; $servers" ""
start_nginx origin "$ORIGIN"
[[ -z $servers ]] || "$BIN" ca init --ca-dir "$T/rtca" >"$T/ca.log" 2>&1 || die "rangetap ca init failed: $(cat "$T/ca.log")"

# How fast this machine fills new page-cache pages (every bodies row pays it, socat never): a new
# file of the benchmark's size (at most 1 GiB) written twice, the second right after removing the
# first. Where a VM's balloon reports freed pages to the host, the first is far slower.
page_cache() {
  local mb=$((SIZE_MB < 1024 ? SIZE_MB : 1024)) rates=() f
  for _ in 1 2; do
    rates+=("$({ dd if=/dev/zero of="$T/dd.bin" bs=1M count="$mb" 2>&1 >/dev/null; } | awk '/copied/ { print $(NF - 1), $NF }')")
    rm -f "$T/dd.bin"
  done
  for f in /sys/bus/virtio/drivers/virtio_balloon/virtio*/features; do
    [[ -r $f ]] && rates+=("free page reporting $([[ $(cut -c6 "$f") == 1 ]] && echo on || echo off)")
  done
  echo "a new $mb MiB file at ${rates[0]}, again after removing it ${rates[1]}${rates[2]:+; ${rates[2]}}"
}

# start ROW: the proxy of ROW for SCHEME on a free port. Sets PID (empty for direct) and ARGS
# (curl's options: the proxy and the CA to trust), URL (the origin as this row reaches it);
# fails when it does not listen.
start() {
  local row=$1 port rt=()
  port=$(free_port)
  PID="" ARGS=() URL=http://127.0.0.1:$ORIGIN
  case $SCHEME in
    https) ARGS=(--http1.1) URL=https://127.0.0.1:$TLS ;;
    h2) ARGS=(--http2) URL=https://127.0.0.1:$H2 ;;
  esac
  case $row in
    direct) [[ $SCHEME == http ]] || ARGS+=(--cacert "$ORIGIN_CA"); return 0 ;;
    socat) serve "$port" "$T/socat.log" "$SOCAT" -b 262144 "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "TCP:127.0.0.1:$ORIGIN" || return 1 ;;
    hashrelay) serve "$port" "$T/hashrelay.log" "$T/hashrelay" "$port" "$ORIGIN" || return 1 ;;
    hashrelay-bodies)
      rm -rf "$T/bodies" && mkdir "$T/bodies"
      serve "$port" "$T/hashrelay.log" "$T/hashrelay" "$port" "$ORIGIN" --bodies "$T/bodies" || return 1 ;;
    rangetap-*)
      rm -rf "$T/cap.rtap"
      [[ $row == rangetap-meta ]] && rt=(--no-bodies)
      [[ $SCHEME == http ]] || rt+=(--ca-dir "$T/rtca" --upstream-cacert "$ORIGIN_CA")
      serve "$port" "$T/record.log" "$BIN" record --listen "127.0.0.1:$port" -o "$T/cap.rtap" "${rt[@]}" || return 1
      [[ $SCHEME == http ]] || ARGS+=(--cacert "$T/rtca/rangetap-ca.pem") ;;
    tinyproxy)
      printf 'Port %s\nListen 127.0.0.1\nTimeout 600\nMaxClients 100\nLogLevel Warning\nDisableViaHeader Yes\n' "$port" >"$T/tinyproxy.conf"
      serve "$port" "$T/tinyproxy.log" "$TINYPROXY" -d -c "$T/tinyproxy.conf" || return 1 ;;
    mitm)
      [[ $SCHEME == http ]] || rt=(--set "ssl_verify_upstream_trusted_ca=$ORIGIN_CA")
      serve "$port" "$T/mitm.log" "$MITM" -q --listen-host 127.0.0.1 -p "$port" --set "confdir=$T/mitm" --set stream_large_bodies=1 "${rt[@]}" || return 1
      [[ $SCHEME == http ]] || ARGS+=(--cacert "$T/mitm/mitmproxy-ca-cert.pem") ;;
  esac
  PID=$SPAWNED
  case $row in
    socat | hashrelay*) URL=http://127.0.0.1:$port ;;
    *) ARGS+=(-x "http://127.0.0.1:$port") ;;
  esac
}
# finish ROW: stops ROW's proxy (rangetap with SIGINT: it closes its capture).
finish() {
  [[ -n $PID ]] || return 0
  if [[ $1 == rangetap-* ]]; then stop "$PID" INT 60; else stop "$PID" TERM 10; fi
  [[ $STOP_RC == 0 || $1 != rangetap-* ]] || note "$1" "exit status $STOP_RC after SIGINT"
  rm -rf "$T/cap.rtap" "$T/bodies"
}
note() { [[ ${NOTE[$SCHEME/$1]:-} == *"$2"* ]] || NOTE[$SCHEME/$1]="${NOTE[$SCHEME/$1]:+${NOTE[$SCHEME/$1]}; }$2"; }

declare -A MBPS CPU RSS TTFB ADDED NOTE ROWS
# big ROW ROUND: one GET of the big file through ROW.
big() {
  local row=$1 bytes speed code ver cpu hwm want=1.1
  start "$row" || { note "$row" "did not start"; return 0; }
  log "$SCHEME $row, round $2: GET of ${SIZE_MB} MiB"
  read -r bytes speed _ code ver cpu hwm <<<"$(get_through "$PID" "${ARGS[@]}" "$URL/big.bin")"
  finish "$row"
  [[ $SCHEME == h2 ]] && want=2
  if [[ $code != 200 || $bytes != "$BYTES" || ($SCHEME != http && $ver != "$want") ]]; then
    note "$row" "a round got $code, $bytes bytes, HTTP/$ver"
    return 0
  fi
  MBPS[$SCHEME/$row]+="$(awk -v s="$speed" 'BEGIN { printf "%.1f", s / 1e6 }') "
  [[ $cpu == - ]] || CPU[$SCHEME/$row]+="$(awk -v c="$cpu" -v b="$bytes" 'BEGIN { printf "%.3f", c / (b / 1073741824) }') "
  [[ $hwm == - || $row == socat || $row == hashrelay* ]] ||
    RSS[$SCHEME/$row]=$(awk -v a="$hwm" -v b="${RSS[$SCHEME/$row]:-0}" 'BEGIN { printf "%.1f", (a / 1024 > b ? a / 1024 : b) }')
}
# ttfb ROW: TTFB_N fresh-connection GETs of 1 MiB through ROW, each after one straight to nginx.
ttfb() {
  local row=$1 direct=(--cacert "${ORIGIN_CA:-}" "https://127.0.0.1:$TLS/small.bin") p d ok
  start "$row" || { note "$row" "did not start"; return 0; }
  log "$SCHEME $row: TTFB, $TTFB_N pairs"
  curl -s -o /dev/null --max-time 30 "${ARGS[@]}" "$URL/small.bin" || true # warm-up (a leaf minted)
  [[ $SCHEME == http ]] && direct=("http://127.0.0.1:$ORIGIN/small.bin")
  [[ $SCHEME == h2 ]] && direct=(--http2 --cacert "$ORIGIN_CA" "https://127.0.0.1:$H2/small.bin")
  if [[ $row == direct ]]; then
    read -r p d ok <<<"$(ttfb_pairs "$TTFB_N" "$SMALL" "${ARGS[@]}" "$URL/small.bin")"
  else
    read -r p d ok <<<"$(ttfb_pairs "$TTFB_N" "$SMALL" "${direct[@]}" -- "${ARGS[@]}" "$URL/small.bin")"
  fi
  finish "$row"
  ((ok == TTFB_N)) || note "$row" "$((TTFB_N - ok)) of $TTFB_N TTFB GETs failed"
  TTFB[$SCHEME/$row]=$p
  ADDED[$SCHEME/$row]=$(awk -v p="$p" -v d="$d" 'BEGIN { if (p == "-" || d == "-") print "-"; else printf "%+.3f", p - d }')
}

PAGE_CACHE=$(page_cache)
for SCHEME in "${SCHEMES[@]}"; do
  rows=(direct)
  if [[ $SCHEME == http ]]; then
    [[ -n $SOCAT ]] && rows+=(socat)
    [[ -n $HASHRELAY_WHY ]] || rows+=(hashrelay hashrelay-bodies)
    rows+=(rangetap-meta rangetap-bodies)
    [[ -n $TINYPROXY ]] && rows+=(tinyproxy)
  else
    rows+=(rangetap-meta rangetap-bodies)
  fi
  [[ -n $MITM ]] && rows+=(mitm)
  ROWS[$SCHEME]="${rows[*]}"
  for ((r = 0; r < ROUNDS; r++)); do
    for ((k = 0; k < ${#rows[@]}; k++)); do big "${rows[(k + r) % ${#rows[@]}]}" $((r + 1)); done
  done
  for row in "${rows[@]}"; do [[ $row == hashrelay* ]] || ttfb "$row"; done
done

# ---------------------------------------------------------------- report
fig() { median "${2:-1}" - <<<"${1:-}"; }
echo "# bench-proxy $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# rangetap $SOURCE (a fresh copy; repo $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'))  nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //')  $(curl --version | awk 'NR == 1 { print $1, $2 }')"
echo "# big GET ${SIZE_MB} MiB, $ROUNDS rounds (medians); TTFB: $TTFB_N pairs of 1 MiB GETs on new connections"
echo "# page cache: $PAGE_CACHE"
for why in "socat: $SOCAT_WHY" "tinyproxy: $TINYPROXY_WHY" "mitm: $MITM_WHY" "hashrelay: $HASHRELAY_WHY"; do
  [[ $why == *": " ]] || echo "# not run: $why"
done
for SCHEME in "${SCHEMES[@]}"; do
  ref=mitm
  [[ $SCHEME == http ]] && ref=socat
  echo
  echo "## $SCHEME"
  printf '%-17s %8s %8s %8s %10s %10s %9s %9s %9s  %s\n' row MB/s x_direct "x_$ref" CPU_s/GiB "CPU_x_$ref" peakRSS TTFB_ms +TTFB_ms notes
  for row in ${ROWS[$SCHEME]}; do
    m=$(fig "${MBPS[$SCHEME/$row]:-}") c=$(fig "${CPU[$SCHEME/$row]:-}" 3)
    printf '%-17s %8s %8s %8s %10s %10s %9s %9s %9s  %s\n' "$row" "$m" "$(ratio "$m" "$(fig "${MBPS[$SCHEME/direct]:-}")" 3)" \
      "$(ratio "$m" "$(fig "${MBPS[$SCHEME/$ref]:-}")" 3)" "$c" "$(ratio "$c" "$(fig "${CPU[$SCHEME/$ref]:-}" 3)")" \
      "${RSS[$SCHEME/$row]:--}" "${TTFB[$SCHEME/$row]:--}" "${ADDED[$SCHEME/$row]:--}" "${NOTE[$SCHEME/$row]:-}"
  done
done
echo
echo "# MB/s: 10^6 B/s; CPU_s/GiB: the proxy's user + system CPU per GiB moved; peakRSS: VmHWM, MiB; +TTFB: minus the direct GETs paired with them"

if [[ " ${SCHEMES[*]} " == *" http "* ]]; then
  SCHEME=http
  m() { fig "${MBPS[http/$1]:-}"; }
  c() { fig "${CPU[http/$1]:-}" 3; }
  verdict() { awk -v x="$1" -v op="$2" -v t="$3" 'BEGIN { if (x == "-" || x == "") print "-"; else print ((op == ">=" ? x + 0 >= t : x + 0 <= t) ? "PASS" : "FAIL") }'; }
  echo
  echo "# http: rangetap against the least work (no target)"
  if [[ -z $HASHRELAY_WHY ]]; then
    printf '%-44s %s of its MB/s for %s x its CPU\n' "rangetap-meta against hashrelay" "$(ratio "$(m rangetap-meta)" "$(m hashrelay)" 3)" "$(ratio "$(c rangetap-meta)" "$(c hashrelay)")" \
      "rangetap-bodies against hashrelay-bodies" "$(ratio "$(m rangetap-bodies)" "$(m hashrelay-bodies)" 3)" "$(ratio "$(c rangetap-bodies)" "$(c hashrelay-bodies)")"
    printf '%-44s %s of its MB/s for %s x its CPU\n' "hashrelay-bodies against socat" "$(ratio "$(m hashrelay-bodies)" "$(m socat)" 3)" "$(ratio "$(c hashrelay-bodies)" "$(c socat)")"
  fi
  printf '%-44s socat %s ms, tinyproxy %s ms\n' "what a relay alone adds to TTFB" "${ADDED[http/socat]:--}" "${ADDED[http/tinyproxy]:--}"
  echo
  echo "# http: issue 15's targets (1 GiB, at least 5 rounds)"
  v=$(ratio "$(m rangetap-bodies)" "$(m socat)" 3)
  printf '%-44s %-10s %s\n' "rangetap-bodies MB/s >= 0.8 x socat" "$v" "$(verdict "$v" '>=' 0.8)"
  v=$(ratio "$(m rangetap-meta)" "$(m socat)" 3)
  printf '%-44s %-10s %s\n' "rangetap-meta MB/s >= 0.95 x socat" "$v" "$(verdict "$v" '>=' 0.95)"
  v=$(ratio "$(c rangetap-bodies)" "$(c socat)")
  printf '%-44s %-10s %s\n' "rangetap-bodies CPU <= 2 x socat's" "$v" "$(verdict "$v" '<=' 2)"
  for row in rangetap-meta rangetap-bodies; do
    v=${ADDED[http/$row]:--}
    printf '%-44s %-10s %s\n' "$row added TTFB <= 0.3 ms" "$v" "$(verdict "$v" '<=' 0.3)"
    v=${RSS[http/$row]:--}
    printf '%-44s %-10s %s\n' "$row peak RSS <= 32 MiB" "$v" "$(verdict "$v" '<=' 32)"
  done
fi
