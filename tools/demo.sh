#!/usr/bin/env bash
# rangetap end to end: installs what is missing, builds, starts a local nginx on a generated MP4
# (index at the end), records a real player session through the proxy — ffprobe opening the file,
# then ffmpeg seeking to 12 s and playing 3 s, curl's AVPlayer-style probe and an abandoned
# open-ended range; then the same file over HTTPS (nginx with a test CA; rangetap intercepting the
# CONNECT with its own CA) — and prints the inspection (timeline, findings, summary) plus an HTML
# waterfall.
# Everything runs on 127.0.0.1; only processes started here are stopped, by PID. Nothing is changed
# on the machine but the packages installed (tools/install-deps.sh --for demo) and the build in .build/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools/install-deps.sh --for demo
echo "== building rangetap" >&2
swift build --product rangetap 2>&1 | tail -n 1 >&2
bin="$root/.build/debug/rangetap"
echo "== rangetap is $bin (not on PATH; tools/install.sh puts a release build, its man pages and completions under /usr/local)" >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-demo.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

. "$root/tools/lib.sh"

echo "== generating media with ffmpeg's test sources" >&2
tools/make-media.sh "$work/www"

origin_port=$(free_port)
write_nginx_conf "$work/nginx" "$origin_port" "$work/www"
/usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/error.log" & pids+=($!)
wait_port "$origin_port"

# The same files over HTTPS: a test CA for the origin, and a certificate for localhost from it.
tls="$work/tls"; mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tls/origin-ca.key" -out "$tls/origin-ca.pem" -days 1 -subj "/CN=demo origin CA" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tls/key.pem" -out "$tls/req.csr" -subj "/CN=localhost" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$tls/ext.cnf"
openssl x509 -req -in "$tls/req.csr" -CA "$tls/origin-ca.pem" -CAkey "$tls/origin-ca.key" -CAcreateserial -out "$tls/cert.pem" -days 1 -extfile "$tls/ext.cnf" 2>/dev/null
tls_port=$(free_port)
write_nginx_conf "$work/nginx-tls" "$tls_port ssl" "$work/www" "ssl_certificate $tls/cert.pem; ssl_certificate_key $tls/key.pem;"
/usr/sbin/nginx -c "$work/nginx-tls/nginx.conf" -p "$work/nginx-tls" -e "$work/nginx-tls/error.log" & pids+=($!)
wait_port "$tls_port"

proxy_port=$(free_port)
capture="$work/demo.rtap"
echo "== recording: rangetap record --listen 127.0.0.1:$proxy_port -o $capture --client-sndbuf 32768 --ca-dir $work/ca --upstream-cacert $tls/origin-ca.pem" >&2
"$bin" record --listen "127.0.0.1:$proxy_port" -o "$capture" --client-sndbuf 32768 --ca-dir "$work/ca" --upstream-cacert "$tls/origin-ca.pem" 2> "$work/record.log" & rec=$!
pids+=("$rec")
wait_port "$proxy_port"

url="http://127.0.0.1:$origin_port/moov-at-end.mp4"
echo "== player: ffprobe $url (through the proxy)" >&2
ffprobe -v error -http_proxy "http://127.0.0.1:$proxy_port" -show_entries format=duration,size -of compact "$url" >&2
echo "== player: ffmpeg -ss 12 -i $url -t 3 (seek, then play 3 s)" >&2
ffmpeg -v error -http_proxy "http://127.0.0.1:$proxy_port" -ss 12 -i "$url" -t 3 -f null - >&2
echo "== player: curl -r 0-1 (the AVPlayer-style probe) and an open-ended range dropped after 64 KB" >&2
curl -s --noproxy '' -x "http://127.0.0.1:$proxy_port" -r 0-1 "$url" -o /dev/null
curl -s --noproxy '' -x "http://127.0.0.1:$proxy_port" -H 'Range: bytes=0-' "$url" | head -c 65536 > /dev/null || true
secure="https://localhost:$tls_port/moov-at-end.mp4"
echo "== player over HTTPS: ffprobe $secure (CONNECT intercepted; ffprobe trusts $work/ca/rangetap-ca.pem)" >&2
ffprobe -v error -http_proxy "http://127.0.0.1:$proxy_port" -tls_verify 1 -ca_file "$work/ca/rangetap-ca.pem" -show_entries format=duration -of compact "$secure" >&2
curl -s --noproxy '' -x "http://127.0.0.1:$proxy_port" --cacert "$work/ca/rangetap-ca.pem" -r 0-1 "$secure" -o /dev/null

kill -INT "$rec"; wait "$rec" || true
echo "== what the proxy printed while recording" >&2
cat "$work/record.log" >&2
echo
echo "== rangetap inspect $capture --html $work/report.html"
"$bin" inspect "$capture" --html "$work/report.html"
echo
echo "capture kept at $capture (events.jsonl + body.bin; format: docs/capture-format.md)"
echo "waterfall: $work/report.html"
echo
echo "the binary: $bin (a debug build; run it by that path)"
echo "to install rangetap with its man pages and shell completions: tools/install.sh [--prefix DIR] (default /usr/local)"
