#!/usr/bin/env bash
# Regenerates tools/rangetap.order: the functions of the binary a recording session runs, which
# the release link (tools/release-build.sh) places together at the start of the code. The kernel
# maps 64 KiB around each page fault, so code a recording runs that is scattered over the binary's
# 26 MiB made about 15 MiB of it resident; packed, an idle `record` is about 6 MiB smaller
# (docs/performance.md, "Memory of the binary").
#
# How: runs `rangetap record` under `valgrind --tool=callgrind` (every executed function is in its
# output) twice against a private nginx on 127.0.0.1: as a forward proxy recording bodies, driven
# with a player-like mix (plain HTTP, TLS and TLS with h2: full GETs, ranges, a HEAD, two cut
# transfers, a refused upstream, a POST), then as a reverse proxy recording metadata only
# (`--upstream --no-bodies`: keep-alive GETs, ranges, fresh connections). Each is stopped with
# SIGINT; the file lists the functions that ran. Stale names in the file are harmless: the linker
# skips symbols it does not find.
#
# Usage: tools/order-file.sh [BINARY]   (default: the static release build, made if missing)
# Needs: valgrind, nginx, openssl, curl, objcopy, cc. Stops only what it started; removes its temp dir.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=tools/lib.sh
. "$SCRIPT_DIR/lib.sh"
log() { echo "order-file: $*" >&2; }
die() { log "$*"; exit 1; }
for tool in valgrind nginx openssl curl objcopy cc python3; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (apt-get install -y valgrind nginx openssl curl binutils gcc python3)"
done

bin=${1:-}
if [[ -z $bin ]]; then
  # shellcheck source=tools/release-build.sh
  . "$SCRIPT_DIR/release-build.sh"
  bin=$(release_build "$root") || die "release build failed"
fi
[[ -x $bin ]] || die "no rangetap binary at $bin"

T=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-order.XXXXXX")
PIDS=()
cleanup() {
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[i]}" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT

# valgrind 3.19 writes into the mask passed to sigsuspend(2), which libdispatch keeps read-only
# (see docs/profile.md): sigsuspend on a copy. Its DWARF 5 reader gives up on the binary: strip it.
cat >"$T/shim.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return (int)syscall(SYS_rt_sigsuspend, &copy, 8); }
C
cc -O2 -shared -fPIC -o "$T/shim.so" "$T/shim.c"
objcopy --strip-debug "$bin" "$T/rangetap"

# The origin: one self-signed certificate for localhost and 127.0.0.1, three ports.
mkdir -p "$T/www" "$T/nginx"
head -c 65536 /dev/urandom >"$T/www/small.bin"
head -c 2000000 /dev/urandom >"$T/www/media.bin"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/origin.key" -out "$T/origin.pem" \
  -days 2 -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >"$T/openssl.log" 2>&1 ||
  { cat "$T/openssl.log" >&2; die "openssl could not make the origin certificate"; }
plain=$(free_port); tls=$(free_port); h2=$(free_port)
write_nginx_conf "$T/nginx" "$plain" "$T/www" "}
  server { listen 127.0.0.1:$tls ssl; ssl_certificate $T/origin.pem; ssl_certificate_key $T/origin.key; root $T/www; }
  server { listen 127.0.0.1:$h2 ssl http2; ssl_certificate $T/origin.pem; ssl_certificate_key $T/origin.key; root $T/www;"
nginx -c "$T/nginx/nginx.conf" -p "$T/nginx" -e "$T/nginx/error.log" &
PIDS+=($!)
wait_port "$plain" && wait_port "$tls" && wait_port "$h2" || die "nginx did not start: $(tail -n 3 "$T/nginx/error.log")"

# under_callgrind NAME ARGS...: starts `rangetap ARGS` under callgrind (output $T/NAME.callgrind,
# log $T/NAME.log), sets rt to its PID, and waits until it listens on $port.
under_callgrind() {
  local name=$1; shift
  log "running $bin $* under callgrind"
  LD_PRELOAD="$T/shim.so" valgrind --tool=callgrind --callgrind-out-file="$T/$name.callgrind" --compress-strings=no --demangle=no \
    "$T/rangetap" "$@" >"$T/$name.log" 2>&1 &
  rt=$!; PIDS+=("$rt")
  for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  wait_port "$port" || die "rangetap did not listen: $(tail -n 5 "$T/$name.log")"
}
# stop_callgrind NAME: SIGINT, as Ctrl-C: the capture is closed as a user's would be.
stop_callgrind() {
  kill -INT "$rt"
  wait "$rt" || die "rangetap exited with $?: $(tail -n 5 "$T/$1.log")"
}

# 1. A forward proxy recording bodies: plain HTTP, intercepted HTTPS and HTTP/2, failures.
port=$(free_port)
under_callgrind forward record -p "$port" -o "$T/capture.rtap" --ca-dir "$T/ca" --upstream-cacert "$T/origin.pem"

x=(-sS --max-time 120 -x "http://127.0.0.1:$port")
ca=(--cacert "$T/ca/rangetap-ca.pem")
for _ in 1 2; do
  curl "${x[@]}" -o /dev/null "http://127.0.0.1:$plain/small.bin"
  curl "${x[@]}" -o /dev/null -r 0-99999 "http://127.0.0.1:$plain/media.bin"
  curl "${x[@]}" -o /dev/null -r 1000000- "http://127.0.0.1:$plain/media.bin"
  curl "${x[@]}" -o /dev/null -I "http://127.0.0.1:$plain/media.bin"
  curl "${x[@]}" "http://127.0.0.1:$plain/media.bin" 2>/dev/null | head -c 100000 >/dev/null || true
  curl "${x[@]}" "${ca[@]}" -o /dev/null "https://localhost:$tls/small.bin"
  curl "${x[@]}" "${ca[@]}" -o /dev/null -r 0-99999 "https://localhost:$tls/media.bin"
  curl "${x[@]}" "${ca[@]}" -o /dev/null "https://127.0.0.1:$tls/media.bin"
  curl "${x[@]}" "${ca[@]}" "https://localhost:$tls/media.bin" 2>/dev/null | head -c 100000 >/dev/null || true
  curl "${x[@]}" "${ca[@]}" --http2 -o /dev/null -r 0-99999 "https://localhost:$h2/media.bin"
  curl "${x[@]}" "${ca[@]}" --http2 -o /dev/null "https://localhost:$h2/small.bin"
  curl "${x[@]}" -o /dev/null "http://127.0.0.1:1/refused" 2>/dev/null || true
  curl "${x[@]}" -o /dev/null -X POST --data-binary "@$T/www/small.bin" "http://127.0.0.1:$plain/small.bin" 2>/dev/null || true
done
stop_callgrind forward

# 2. A reverse proxy recording metadata only (`record --upstream --no-bodies`, what
# tools/bench-proxy.sh, bench-load.sh and a player's fixture sessions run), started with the CA of
# run 1 on disk: keep-alive GETs, ranges, a HEAD, a cut transfer, fresh connections. Without it,
# the functions only this mode and its start run were left scattered over the binary: 51 of the
# 114 code page faults of an idle `record --upstream` fell outside the packed code, each mapping up
# to 64 KiB (docs/performance.md, "Memory of the binary").
port=$(free_port)
under_callgrind reverse record -p "$port" --upstream "http://127.0.0.1:$plain" --no-bodies -o "$T/reverse.rtap" --ca-dir "$T/ca"
r="http://127.0.0.1:$port"
for _ in 1 2; do
  curl -sS --max-time 120 -o /dev/null -o /dev/null -o /dev/null "$r/small.bin" "$r/media.bin" "$r/small.bin"
  curl -sS --max-time 120 -o /dev/null -r 0-99999 "$r/media.bin"
  curl -sS --max-time 120 -o /dev/null -r 1000000- "$r/media.bin"
  curl -sS --max-time 120 -o /dev/null -I "$r/media.bin"
  curl -sS --max-time 120 "$r/media.bin" 2>/dev/null | head -c 100000 >/dev/null || true
  curl -sS --max-time 120 -o /dev/null -H 'Connection: close' "$r/small.bin"
  curl -sS --max-time 120 -o /dev/null "$r/missing.bin"
done
stop_callgrind reverse

# Every `fn=` line names a function that ran, as its symbol (--demangle=no); a `'N` suffix marks
# a recursion depth, addresses are functions without a symbol. Names of the shared libraries'
# functions stay in: the linker skips what the binary does not define. Run 1's functions come
# first, in their order; run 2 adds those it alone ran.
grep -h '^fn=' "$T/forward.callgrind" "$T/reverse.callgrind" | sed -e 's/^fn=//' -e "s/'[0-9]*\$//" | grep -v '^0x' | awk '!seen[$0]++' >"$T/order"
n=$(wc -l <"$T/order")
((n > 1000)) || die "only $n functions ran: is $bin a rangetap with symbols?"
mv "$T/order" "$root/tools/rangetap.order"
log "wrote tools/rangetap.order: $n functions"
