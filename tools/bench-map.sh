#!/usr/bin/env bash
# bench-map.sh — `record --map` (Map Local): a 256 MiB file answered by rangetap from disk against
# the same file relayed from nginx by the same recording proxy, in the same run (pairs taken in
# turn): CPU seconds per GiB (rangetap's, and with nginx's added for the relayed one: a mapped
# answer does the origin's reading too), throughput, time to first byte, peak RSS. Also a range
# request of 1 MiB from the middle of the file, mapped and relayed.
# Knobs: RANGETAP=BIN (else the release build), BENCH_ROUNDS (5), BENCH_KEEP_TMP=1, BENCH_TMPDIR.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-map
release_binary
need_origin_tools
mkdir -p "$T/www"
head -c $((256 << 20)) /dev/urandom >"$T/www/f.bin"
port=$(free_port)
nginx_conf origin "$port" "" ""
start_nginx origin "$port"
start_record "$BIN" -o "$T/m.rtap" --no-bodies --no-hash --map "path=/mapped.bin,file=$T/www/f.bin"
proxy=http://127.0.0.1:$RT_PORT
rounds=${BENCH_ROUNDS:-5}
declare -A cpu both rate ttfb
for ((i = 0; i < rounds; i++)); do
  for kind in relayed mapped; do
    path=f.bin
    [[ $kind == mapped ]] && path=mapped.bin
    n0=$(cpu_ticks "$NGINX_PID")
    read -r bytes speed first code _ c _ < <(get_through "$RT_PID" -x "$proxy" "http://127.0.0.1:$port/$path")
    n1=$(cpu_ticks "$NGINX_PID")
    both[$kind]+=" $(awk -v c="$c" -v t=$((n1 - n0)) -v h="$HZ" 'BEGIN { printf "%.3f", (c + t / h) * 4 }')"
    [[ $code == 200 && $bytes == $((256 << 20)) ]] || die "$kind GET answered $code with $bytes bytes"
    cpu[$kind]+=" $(awk -v c="$c" 'BEGIN { printf "%.3f", c * 4 }')" # per GiB: 256 MiB x 4
    rate[$kind]+=" $(awk -v s="$speed" 'BEGIN { printf "%.1f", s / 1048576 }')"
    ttfb[$kind]+=" $(awk -v t="$first" 'BEGIN { printf "%.3f", t * 1000 }')"
    read -r _ _ first code _ < <(get_through "" -x "$proxy" -r 134217728-135266303 "http://127.0.0.1:$port/$path")
    [[ $code == 206 ]] || die "$kind range GET answered $code"
    ttfb[$kind-range]+=" $(awk -v t="$first" 'BEGIN { printf "%.3f", t * 1000 }')"
  done
done
printf '%-8s %12s %18s %10s %12s %16s\n' "" "CPU s/GiB" "+ nginx's s/GiB" "MiB/s" "TTFB ms" "1 MiB range TTFB"
for kind in relayed mapped; do
  printf '%-8s %12s %18s %10s %12s %16s\n' "$kind" "$(median 3 <<<"${cpu[$kind]}")" "$(median 3 <<<"${both[$kind]}")" \
    "$(median 1 <<<"${rate[$kind]}")" "$(median 3 <<<"${ttfb[$kind]}")" "$(median 3 <<<"${ttfb[$kind-range]}")"
done
echo "mapped / relayed, rangetap's CPU s per GiB: $(ratio "$(median 3 <<<"${cpu[mapped]}")" "$(median 3 <<<"${cpu[relayed]}")")x; with nginx's: $(ratio "$(median 3 <<<"${both[mapped]}")" "$(median 3 <<<"${both[relayed]}")")x"
echo "rangetap peak RSS: $(awk -v k="$(hwm_kib "$RT_PID")" 'BEGIN { printf "%.1f", k / 1024 }') MiB"
