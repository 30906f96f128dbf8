#!/usr/bin/env bash
# Opens a page in headless Chromium through an HTTP proxy that intercepts HTTPS, trusting the
# proxy's CA through an NSS database (never --ignore-certificate-errors), and waits for the page
# to log "rangetap-page done ..." to its console (Tests/Clients/chromium_seek_page.html does).
#
#   chromium_play.sh (--ca CA.pem | --home DIR) --proxy HOST:PORT --url URL [--http1] [--timeout SECONDS]
#
# --home DIR runs Chromium with HOME=DIR and the NSS database already there (DIR/.pki/nssdb, as
# `rangetap ca trust --nss` leaves it) instead of one made here with the CA.
# --http1 runs Chromium with --disable-http2 (HTTP/1.1 inside the same intercepted TLS).
# Prints the page's done line on stdout; exits 0 when it says "done ok", 1 when it says
# otherwise, Chromium exited early or the timeout (default 90 s) passed, 2 on bad usage or a
# missing tool. Chromium runs with HOME and its profile in a temporary directory, removed on exit;
# only the Chromium process this script started is stopped, by its PID.
# Needs chromium and certutil (Debian: chromium, libnss3-tools); CHROMIUM overrides the browser.
set -uo pipefail

ca="" proxy="" url="" http1=0 timeout=90 given_home=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ca) ca=$2; shift 2 ;;
    --home) given_home=$2; shift 2 ;;
    --proxy) proxy=$2; shift 2 ;;
    --url) url=$2; shift 2 ;;
    --http1) http1=1; shift ;;
    --timeout) timeout=$2; shift 2 ;;
    *) echo "chromium_play.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
{ [ -n "$ca" ] || [ -n "$given_home" ]; } && [ -n "$proxy" ] && [ -n "$url" ] || { echo "usage: chromium_play.sh (--ca CA.pem | --home DIR) --proxy HOST:PORT --url URL [--http1] [--timeout SECONDS]" >&2; exit 2; }
[ -z "$ca" ] || [ -r "$ca" ] || { echo "chromium_play.sh: cannot read the CA certificate $ca" >&2; exit 2; }
browser=${CHROMIUM:-$(command -v chromium || true)}
[ -n "$browser" ] && [ -x "$browser" ] || { echo "chromium_play.sh: chromium is not installed (apt-get install chromium)" >&2; exit 2; }
command -v certutil >/dev/null || { echo "chromium_play.sh: certutil is not installed (apt-get install libnss3-tools)" >&2; exit 2; }

home=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-chromium-XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  fi
  [ -n "$pid" ] && wait "$pid" 2>/dev/null
  # Its helper processes (zygote, renderer, GPU, network) leave on their own once it is gone.
  for _ in $(seq 50); do pgrep -f -- "--user-data-dir=$home" >/dev/null || break; sleep 0.1; done
  rm -rf "$home"
}
trap cleanup EXIT

# Chromium on Linux trusts the roots of $HOME/.pki/nssdb besides its own root store.
mkdir -p "$home/profile"
browser_home=$home
if [ -n "$given_home" ]; then
  browser_home=$given_home
else
  mkdir -p "$home/.pki/nssdb"
  if ! out=$(certutil -d "sql:$home/.pki/nssdb" -N --empty-password 2>&1 &&
             certutil -d "sql:$home/.pki/nssdb" -A -t "C,," -n rangetap -i "$ca" 2>&1); then
    echo "chromium_play.sh: certutil could not make the NSS database: $out" >&2
    exit 2
  fi
fi

flags=(--headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check
       --disable-background-networking --disable-component-update --disable-sync
       --disable-default-apps --disable-extensions --mute-audio
       --autoplay-policy=no-user-gesture-required
       --proxy-server="http://$proxy" --proxy-bypass-list='<-loopback>'
       --user-data-dir="$home/profile" --enable-logging=stderr --v=0)
[ "$http1" = 1 ] && flags+=(--disable-http2)

HOME="$browser_home" "$browser" "${flags[@]}" "$url" >"$home/chromium.out" 2>"$home/chromium.err" &
pid=$!

deadline=$((SECONDS + timeout))
line=""
while :; do
  line=$(grep -a -o 'rangetap-page done [^"]*' "$home/chromium.err" | head -n 1)
  [ -n "$line" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "chromium_play.sh: chromium exited before the page was done; its stderr ends:" >&2
    tail -n 30 "$home/chromium.err" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "chromium_play.sh: the page was not done within ${timeout}s; chromium's stderr ends:" >&2
    tail -n 30 "$home/chromium.err" >&2
    exit 1
  fi
  sleep 0.2
done
# Let the page's /done request leave before Chromium is stopped.
sleep 1
echo "$line"
case "$line" in
  "rangetap-page done ok"*) exit 0 ;;
  *) echo "chromium_play.sh: the page did not play through: $line" >&2
     grep -a -E 'CONSOLE|ERROR' "$home/chromium.err" | tail -n 20 >&2
     exit 1 ;;
esac
