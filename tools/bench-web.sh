#!/usr/bin/env bash
# bench-web.sh — the live web view (`rangetap inspect --web`) on a synthetic capture of 10,000
# exchanges (tools/make-synthetic-capture.py): headless Chromium (Tests/Clients/web_view_check.py)
# reports the time from opening the event stream to the first drawn frame (firstRenderMs), median
# of 3 page loads; beside it the size of the first event and rangetap's peak RSS. The baseline,
# measured in the same run: `rangetap inspect --json` on the same capture (the whole analysis
# printed once, which the first event also needs).
# Knobs: RANGETAP=BIN (else the release build), EXCHANGES (10000), BENCH_KEEP_TMP=1, BENCH_TMPDIR.
set -euo pipefail
# shellcheck source=tools/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
bench_script bench-web
release_binary
n=${EXCHANGES:-10000}
command -v chromium >/dev/null 2>&1 || die "chromium is missing: apt-get install chromium"
python3 "$BENCH_TOOLS/make-synthetic-capture.py" "$T/web.rtap" --exchanges "$n" --bytes $((256 << 20))
base=$({ /usr/bin/time -f "%e" "$BIN" inspect "$T/web.rtap" --json >/dev/null; } 2>&1 | tail -n 1)
"$BIN" inspect "$T/web.rtap" --web 0 2>"$T/web.log" &
pid=$!
STARTED+=("$pid")
for _ in $(seq 1800); do grep -q "live view of" "$T/web.log" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$T/web.log") || die "no URL: $(cat "$T/web.log")"
# The first event is the first two lines of the stream (curl ends on the pipe's close).
reset=$( (curl -s --noproxy '*' -N --max-time 30 "${url%%\?*}api/events?token=${url##*=}" || true) | head -n 2 | wc -c)
renders=()
for i in 1 2 3; do
  ms=$(timeout 180 python3 "$REPO_DIR/Tests/Clients/web_view_check.py" "$url" --out "$T/shots-$i" --moments 1 \
    --rows 1 --timeout 120 | python3 -c 'import json,sys; print(json.load(sys.stdin).get("firstRenderMs") or "-")')
  renders+=("$ms")
done
rss=$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$pid/status")
kill -INT "$pid"
wait "$pid" || true
STARTED=()
first=$(median 0 <<<"${renders[*]}")
printf '%-44s %s\n' "exchanges" "$n"
printf '%-44s %.1f MiB\n' "first event (reset) size" "$(awk -v b="$reset" 'BEGIN { print b / 1048576 }')"
printf '%-44s %s ms (runs: %s)\n' "first render in Chromium, median of 3" "$first" "${renders[*]}"
printf '%-44s %s s\n' "baseline: rangetap inspect --json" "$base"
printf '%-44s %.1f MiB\n' "rangetap inspect --web peak RSS" "$rss"
echo "ratio first render / baseline: $(ratio "$(awk -v m="$first" 'BEGIN { print m / 1000 }')" "$base")x"
