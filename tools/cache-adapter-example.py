#!/usr/bin/env python3
"""Example external cache for `rangetap replay --cache-cmd` (protocol: docs/cache-protocol.md).

A sparse cache: every stored byte is kept per resource in memory as a list of disjoint
[start, end) spans with their bytes, merged when they touch; reads return the contiguous run
from the asked offset. Oldest resources are evicted first beyond --capacity bytes.

Flags for testing rangetap's handling of broken caches:
  --corrupt-at N   flip the byte at resource offset N when serving it
  --crash-after N  exit abruptly after N messages
  --hang-on OP     never answer the first message with this op
  --garbage-on OP  answer this op with a line that is not JSON
"""
import argparse
import base64
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capacity", type=int, default=1 << 40)
    ap.add_argument("--corrupt-at", type=int)
    ap.add_argument("--crash-after", type=int)
    ap.add_argument("--hang-on")
    ap.add_argument("--garbage-on")
    args = ap.parse_args()

    spans = {}      # url -> sorted list of [start, bytearray]
    order = []      # urls, oldest first
    evictions = 0
    messages = 0

    def size(url):
        return sum(len(b) for _, b in spans.get(url, []))

    def store(url, offset, data):
        nonlocal evictions
        if url not in spans:
            spans[url] = []
            order.append(url)
        lst = spans[url]
        lst.append([offset, bytearray(data)])
        lst.sort(key=lambda s: s[0])
        merged = []
        for start, buf in lst:
            if merged and start <= merged[-1][0] + len(merged[-1][1]):
                pstart, pbuf = merged[-1]
                end = max(pstart + len(pbuf), start + len(buf))
                out = bytearray(end - pstart)
                out[0:len(pbuf)] = pbuf
                out[start - pstart:start - pstart + len(buf)] = buf
                merged[-1] = [pstart, out]
            else:
                merged.append([start, buf])
        spans[url] = merged
        while sum(size(u) for u in order) > args.capacity and len(order) > 1:
            victim = next(u for u in order if u != url)
            order.remove(victim)
            del spans[victim]
            evictions += 1

    def read(url, offset, length):
        for start, buf in spans.get(url, []):
            if start <= offset < start + len(buf):
                out = bytearray(buf[offset - start:offset - start + length])
                if args.corrupt_at is not None and offset <= args.corrupt_at < offset + len(out):
                    out[args.corrupt_at - offset] ^= 0xFF
                return bytes(out)
        return b""

    def answer(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        messages += 1
        if args.crash_after is not None and messages > args.crash_after:
            sys.exit(3)
        msg = json.loads(line)
        op = msg.get("op")
        if op == args.hang_on:
            args.hang_on = None
            time.sleep(3600)
        if op == args.garbage_on:
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        if op == "hello":
            answer({"ok": msg.get("version") == 1} if msg.get("version") == 1 else {"ok": False, "error": "unknown version"})
        elif op == "info" or op == "end":
            answer({"ok": True})
        elif op == "store":
            store(msg["url"], msg["offset"], base64.b64decode(msg["data"]))
            answer({"ok": True})
        elif op == "read":
            answer({"ok": True, "data": base64.b64encode(read(msg["url"], msg["offset"], msg["length"])).decode()})
        elif op == "stats":
            answer({"ok": True, "evictions": evictions})
        elif op == "bye":
            return
        else:
            answer({"ok": False, "error": f"unknown op {op}"})


if __name__ == "__main__":
    main()
