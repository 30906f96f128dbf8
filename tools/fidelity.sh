#!/usr/bin/env bash
# Chunk-time fidelity: records a paced origin (the quirk origin's /slow mode: 4 KiB pieces, a pause
# between them) through rangetap while dumpcap captures loopback, then compares each chunk's `t`
# (wall clock = the capture's startedAtUs + t) with the kernel timestamp of the packet that carried
# the chunk's first byte. Prints p50/p99/max of (chunk time - packet time). Not a test: a benchmark.
#
#   tools/fidelity.sh [PIECES=400] [DELAY_MS=5] [PIECE_BYTES=4096]
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/lib.sh
pieces=${1:-400}; delay=${2:-5}; piece=${3:-4096}
command -v dumpcap >/dev/null 2>&1 || { export DEBIAN_FRONTEND=noninteractive; apt-get update -qq; apt-get install -y -qq --no-install-recommends tshark >/dev/null; }
swift build -c release --product rangetap 2>&1 | tail -n 1
bin=$(swift build -c release --show-bin-path)/rangetap

work=$(mktemp -d); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

size=$((pieces * piece))
python3 Tests/Origins/quirk_origin.py --port 0 --size "$size" > "$work/origin.out" 2> "$work/origin.err" & pids+=($!)
for _ in $(seq 1 100); do grep -q PORT "$work/origin.out" 2>/dev/null && break; sleep 0.05; done
oport=$(awk '/PORT/{print $2}' "$work/origin.out")
pport=$(free_port)
dumpcap -q -i lo -f "tcp port $oport" -w "$work/lo.pcapng" 2> "$work/dumpcap.err" & pids+=($!)
sleep 1
"$bin" record --listen "127.0.0.1:$pport" -o "$work/f.rtap" 2> "$work/record.err" & rec=$!; pids+=($rec)
wait_port "$pport"
curl -s --noproxy '' -x "http://127.0.0.1:$pport" -o /dev/null "http://127.0.0.1:$oport/slow?delay_ms=$delay&piece=$piece"
sleep 0.5
kill -INT "$rec"; wait "$rec" 2>/dev/null || true
sleep 0.5
kill "${pids[1]}" 2>/dev/null || true; wait "${pids[1]}" 2>/dev/null || true

tshark -r "$work/lo.pcapng" -T fields -e frame.time_epoch -e tcp.srcport -e tcp.seq -e tcp.len -E separator=' ' -o tcp.relative_sequence_numbers:TRUE 2>/dev/null > "$work/packets.txt"
python3 - "$work/f.rtap/events.jsonl" "$work/packets.txt" "$oport" "$pieces" "$delay" <<'PY'
import json, sys
events_path, packets_path, oport, pieces, delay = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
events = [json.loads(l) for l in open(events_path) if l.endswith("\n")]
header = events[0]
anchor = header["startedAtUs"] / 1e6
head_len = sum(len(l.encode("latin-1")) for e in events if e["type"] == "response" for l in e["lines"])
chunks = [e for e in events if e["type"] == "chunk"]
# Origin -> proxy packets with payload: (time, first stream byte, length); seq 1 is the first byte.
pkts = []
for line in open(packets_path):
    f = line.split()
    if len(f) < 4 or int(f[1]) != oport or int(f[3]) == 0:
        continue
    pkts.append((float(f[0]), int(f[2]) - 1, int(f[3])))
pkts.sort(key=lambda p: p[1])
deltas = []
for c in chunks:
    first = head_len + c["off"]
    pkt = next((p for p in pkts if p[1] <= first < p[1] + p[2]), None)
    if pkt is None:
        continue
    deltas.append((anchor + c["t"] / 1e9 - pkt[0]) * 1000)
deltas.sort()
if not deltas:
    sys.exit("no chunk could be matched to a packet")
def pct(q): return deltas[min(len(deltas) - 1, int(q * len(deltas)))]
print(f"fidelity: {len(deltas)} chunks of {len(chunks)} matched to packets ({pieces} pieces, {delay} ms apart)")
print(f"chunk time - packet time (ms): min {deltas[0]:.3f}  p50 {pct(0.5):.3f}  p99 {pct(0.99):.3f}  max {deltas[-1]:.3f}")
print(f"target: p99 <= 0.5 ms -> {'met' if pct(0.99) <= 0.5 else 'NOT met'}; negative values would mean a chunk stamped before its packet arrived")
PY
