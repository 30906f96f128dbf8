#!/usr/bin/env bash
# Installs the system packages rangetap builds and runs with (Debian, as root), only if missing,
# and changes nothing else on the machine (no service is started or stopped).
#
# Usage: tools/install-deps.sh [--for test|demo]   (default: test)
#   demo: the build and tools/demo.sh. libcurl4-openssl-dev: the upstream engine. libssl-dev:
#         libcrypto (SHA-256, the CA and its leaf certificates; Sources/CLibcrypto) and libssl (TLS;
#         Sources/CLibssl). nginx-light,
#         python3: origins. curl, ffmpeg: clients. openssl: the demo's HTTPS origin certificate.
#   test: that, plus what only tools/test.sh uses: chromium (tools/check-html.sh renders the HTML
#         report; ChromiumSeekParityTests plays a video through the proxy), libnss3-tools (certutil:
#         that Chromium trusts the test CA through an NSS database), Python requests and h2 (clients of the HTTPS and HTTP/2 tests), duckdb (the fleet test), dpkg-dev,
#         patchelf, binutils and man-db (the suite builds the .deb with tools/package-deb.sh, which
#         strips the binary, and reads its man pages), tshark (dumpcap records loopback and tshark
#         decrypts it with the key log of record --keylog), iproute2 (LANAccessTests puts a client in
#         a network namespace of its own with ip netns).
# Benchmark baselines (socat, tinyproxy, mitmproxy) are not installed here: the tools/bench-*.sh
# use them with BENCH_INSTALL=1 (without it, their rows say why they were not run).
#
# nginx's Debian package may start a system instance on port 80 when it is installed: nothing here
# uses it or minds it. The tests and the demo run their own nginx (no daemon, no master process)
# with their own config, pid file and logs, on free ports of 127.0.0.1.
set -euo pipefail
purpose=test
case ${1:-} in
  "") ;;
  --for) purpose=${2:-} ;;
  --for=*) purpose=${1#--for=} ;;
  *) echo "install-deps: usage: tools/install-deps.sh [--for test|demo]" >&2; exit 2 ;;
esac
case $purpose in test|demo) ;; *) echo "install-deps: --for test or --for demo, not '$purpose'" >&2; exit 2 ;; esac

need=()
command -v curl-config >/dev/null 2>&1 || need+=(libcurl4-openssl-dev)
[ -f /usr/include/openssl/evp.h ] || need+=(libssl-dev)
command -v curl >/dev/null 2>&1 || need+=(curl)
[ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ "$purpose" = test ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v certutil >/dev/null 2>&1 || need+=(libnss3-tools)
  command -v dpkg-shlibdeps >/dev/null 2>&1 || need+=(dpkg-dev)
  command -v patchelf >/dev/null 2>&1 || need+=(patchelf)
  command -v man >/dev/null 2>&1 || need+=(man-db)
  command -v strip >/dev/null 2>&1 || need+=(binutils)
  command -v tshark >/dev/null 2>&1 || need+=(tshark)
  command -v ip >/dev/null 2>&1 || need+=(iproute2)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # One retry: a download or unpack that fails halfway (a mirror hiccup) usually succeeds again.
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
    || { sleep 5; apt-get update -qq; apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
fi
if [ "$purpose" = test ]; then
  # Python requests: a client of the HTTPS interception tests (PyPI when the image lacks it).
  python3 -c 'import requests' >/dev/null 2>&1 || python3 -m pip install -q requests >/dev/null \
    || { sleep 5; python3 -m pip install -q requests; }
  # Python h2: the HTTP/2 client of the HTTP/2 tests (Tests/Clients/h2_range_client.py).
  python3 -c 'import h2' >/dev/null 2>&1 || python3 -m pip install -q h2 >/dev/null \
    || { sleep 5; python3 -m pip install -q h2; }
  # DuckDB: the engine of the fleet-analysis test (tools/fleet-query.py, docs/fleet.md).
  python3 -c 'import duckdb' >/dev/null 2>&1 || python3 -m pip install -q duckdb >/dev/null \
    || { sleep 5; python3 -m pip install -q duckdb; }
fi
command -v swift >/dev/null 2>&1 || { echo "install-deps: swift is not on PATH (expected the Swift 6.3 toolchain at /opt/swift)" >&2; exit 1; }
