#!/usr/bin/env bash
# Records the sample captures in captures/ with the built rangetap (.build/debug/rangetap; built
# with `swift build --product rangetap` when missing). Everything runs on 127.0.0.1:
#   nginx (own config in a temp dir) serving small media derived from tools/make-media.sh, and
#   Python's http.server (which ignores Range) on another port.
# nginx sends at most 256 KiB/s per request (limit_rate), like a modest network, so a player's
# cancel reaches the recorder before the whole file has (see the nginx config below).
# Each capture is recorded by `rangetap record --client-sndbuf 32768` in the background, the
# client is driven through it, then the recorder is stopped with SIGINT and waited for:
#   avplayer-nginx.rtap       rangetap play --pattern avplayer against nginx
#   ffmpeg-moov-at-end.rtap   ffprobe, then ffmpeg -ss 12 -t 3, on an MP4 with its index at the end
#   curl-ranges.rtap          curl -r 0-1, -r 100-199, -r -500, an open-ended range cut by head -c 65536,
#                             and two URLs on one connection
#   python-http-server.rtap   rangetap play --pattern avplayer against http.server: every Range ignored
# An existing capture of the same name is deleted first. Bodies are kept (replay needs them); the
# media is small (320x240) so that each capture stays under about 3 MB.
# Only processes started here are stopped, by PID.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin="$root/.build/debug/rangetap"
if [ ! -x "$bin" ]; then
  echo "== building rangetap" >&2
  swift build --product rangetap 2>&1 | tail -n 1 >&2
fi
for tool in nginx python3 ffmpeg ffprobe curl; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || { echo "make-captures: $tool is missing; run tools/install-deps.sh" >&2; exit 2; }
done
nginx_bin=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)

work=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-captures.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

. "$root/tools/lib.sh"
forget_pid() { local keep=(); for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done; pids=(${keep[@]+"${keep[@]}"}); }

echo "== media: tools/make-media.sh, then small 320x240 variants" >&2
tools/make-media.sh "$work/full"
mkdir -p "$work/www"
small=(-hide_banner -loglevel error -y -vf scale=320:240 -c:v libx264 -preset ultrafast -b:v 450k -maxrate 450k -bufsize 900k -g 25 -c:a aac -b:a 32k)
ffmpeg -i "$work/full/moov-at-end.mp4" "${small[@]}" "$work/www/moov-at-end.mp4"              # 20 s, index at the end
ffmpeg -i "$work/full/faststart.mp4" "${small[@]}" -movflags +faststart "$work/www/faststart.mp4"
ffmpeg -i "$work/full/moov-at-end.mp4" -t 5 "${small[@]}" "$work/www/short.mp4"               # 5 s, for http.server
ls -l "$work/www" >&2

nginx_port=$(free_port)
# A 256 KiB/s "network" per request: on bare loopback the proxy would have read the whole
# file before a player's cancel reached it, and recorded no cancel at all.
write_nginx_conf "$work/nginx" "$nginx_port" "$work/www" "limit_rate 256k;"
"$nginx_bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/error.log" & pids+=($!)
wait_port "$nginx_port"

python_port=$(free_port)
python3 -m http.server "$python_port" --bind 127.0.0.1 --directory "$work/www" >"$work/http.server.log" 2>&1 & pids+=($!)
wait_port "$python_port"

nginx_url="http://127.0.0.1:$nginx_port"
python_url="http://127.0.0.1:$python_port"
mkdir -p captures

# record NAME CLIENT-FUNCTION: runs the client with $proxy set while rangetap records captures/NAME.rtap.
record() {
  local name=$1 client=$2
  local out="captures/$name.rtap" log="$work/$name.record.log"
  rm -rf "$out"
  proxy_port=$(free_port)
  proxy="http://127.0.0.1:$proxy_port"
  echo "== $name: rangetap record --listen 127.0.0.1:$proxy_port -o $out --client-sndbuf 32768" >&2
  "$bin" record --listen "127.0.0.1:$proxy_port" -o "$out" --client-sndbuf 32768 2>"$log" &
  local rec=$!
  pids+=("$rec")
  # Wait for the recorder's start line rather than probing the port (a probe would be recorded).
  for _ in $(seq 1 200); do grep -q "recording to" "$log" && break; kill -0 "$rec" 2>/dev/null || break; sleep 0.05; done
  grep -q "recording to" "$log" || { cat "$log" >&2; echo "make-captures: rangetap record did not start" >&2; return 1; }
  "$client"
  sleep 0.3   # let the last cancel reach the recorder before it stops
  kill -INT "$rec"
  local status=0
  wait "$rec" || status=$?
  forget_pid "$rec"
  sed 's/^/   /' "$log" >&2
  [ "$status" -eq 0 ] || { echo "make-captures: rangetap record exited $status" >&2; return 1; }
}

client_avplayer_nginx() {
  local out status=0
  out=$("$bin" play "$nginx_url/moov-at-end.mp4" --pattern avplayer --proxy "$proxy" 2>&1) || status=$?
  printf '%s\n' "$out" | sed 's/^/   /' >&2
  [ "$status" -eq 0 ] || { echo "make-captures: rangetap play against nginx exited $status (expected 0)" >&2; return 1; }
}

client_ffmpeg() {
  ffprobe -v error -http_proxy "$proxy" -show_entries format=duration,size -of compact "$nginx_url/moov-at-end.mp4" >&2
  ffmpeg -v error -http_proxy "$proxy" -ss 12 -i "$nginx_url/moov-at-end.mp4" -t 3 -f null - >&2
}

client_curl() {
  local c=(curl -sS --noproxy '' -x "$proxy")
  "${c[@]}" -r 0-1 "$nginx_url/moov-at-end.mp4" -o /dev/null
  "${c[@]}" -r 100-199 "$nginx_url/moov-at-end.mp4" -o /dev/null
  "${c[@]}" -r -500 "$nginx_url/moov-at-end.mp4" -o /dev/null
  # Open-ended, dropped after 64 KiB: curl dies of the closed pipe, which is the point.
  { "${c[@]}" -r 0- "$nginx_url/moov-at-end.mp4" 2>/dev/null | head -c 65536 >/dev/null; } || true
  # Two URLs in one curl run: the second reuses the first's connection to the proxy.
  "${c[@]}" -r 0-1023 "$nginx_url/faststart.mp4" -o /dev/null "$nginx_url/moov-at-end.mp4" -o /dev/null
}

client_python() {
  local out status=0
  out=$("$bin" play "$python_url/short.mp4" --pattern avplayer --proxy "$proxy" --chunk-bytes 64k 2>&1) || status=$?
  printf '%s\n' "$out" | sed 's/^/   /' >&2
  [ "$status" -eq 1 ] || { echo "make-captures: rangetap play against http.server exited $status (expected 1: Range ignored)" >&2; return 1; }
}

record avplayer-nginx client_avplayer_nginx
record ffmpeg-moov-at-end client_ffmpeg
record curl-ranges client_curl
record python-http-server client_python

echo >&2
for name in avplayer-nginx ffmpeg-moov-at-end curl-ranges python-http-server; do
  echo "== rangetap summary captures/$name.rtap ($(du -sh "captures/$name.rtap" | cut -f1))"
  "$bin" summary "captures/$name.rtap"
  echo
done
