#!/usr/bin/env bash
# Installs the system packages rangetap builds and tests with (Debian, as root), only if missing.
# libcurl4-openssl-dev: the upstream engine. nginx-light, python3: origins. curl, ffmpeg: clients.
# socat, tinyproxy: benchmark baselines. openssl: a self-signed certificate for the https test.
# chromium: renders the HTML report in tools/check-html.sh.
set -euo pipefail
need=()
command -v curl-config >/dev/null 2>&1 || need+=(libcurl4-openssl-dev)
command -v curl >/dev/null 2>&1 || need+=(curl)
[ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v socat >/dev/null 2>&1 || need+=(socat)
command -v tinyproxy >/dev/null 2>&1 || [ -x /usr/bin/tinyproxy ] || need+=(tinyproxy)
# chromium: tools/check-html.sh renders the HTML report for real.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # One retry: a download or unpack that fails halfway (a mirror hiccup) usually succeeds again.
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
    || { sleep 5; apt-get update -qq; apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
fi
# Python requests: a client of the HTTPS interception tests (PyPI when the image lacks it).
python3 -c 'import requests' >/dev/null 2>&1 || python3 -m pip install -q requests >/dev/null \
  || { sleep 5; python3 -m pip install -q requests; }
# Python h2: the HTTP/2 client of the HTTP/2 tests (Tests/Clients/h2_range_client.py).
python3 -c 'import h2' >/dev/null 2>&1 || python3 -m pip install -q h2 >/dev/null \
  || { sleep 5; python3 -m pip install -q h2; }
# nginx's Debian package starts a system instance; rangetap's scripts run their own on other ports.
if command -v systemctl >/dev/null 2>&1; then systemctl stop nginx >/dev/null 2>&1 || true; fi
command -v swift >/dev/null 2>&1 || { echo "install-deps: swift is not on PATH (expected the Swift 6.3 toolchain at /opt/swift)" >&2; exit 1; }
