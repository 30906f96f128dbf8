#!/usr/bin/env python3
"""Writes a large synthetic capture (docs/capture-format.md) for benchmarks.

usage: make-synthetic-capture.py OUT.rtap [--exchanges N] [--bytes TOTAL] [--chunk SIZE]

N exchanges of one resource, each a 206 for the next slice of it (so the whole resource is
covered once), on connections of 4 requests each, every chunk's bytes in body.bin (a
repeating non-zero pattern, written for real). Every 10th exchange is cancelled half-way.
"""
import argparse
import hashlib
import json
import os

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--exchanges", type=int, default=10000)
ap.add_argument("--bytes", type=int, default=1 << 30)
ap.add_argument("--chunk", type=int, default=16384)
a = ap.parse_args()

os.makedirs(a.out, exist_ok=False)
per = a.bytes // a.exchanges
total = per * a.exchanges
url = "http://127.0.0.1:8081/big.mp4"
pattern = bytes((i * 7 + i // 256) % 256 for i in range(1 << 20))
t = 1000
at = 0
with open(os.path.join(a.out, "events.jsonl"), "w") as ev, open(os.path.join(a.out, "body.bin"), "wb") as body:
    def emit(o):
        ev.write(json.dumps(o, separators=(",", ":")) + "\n")
    emit({"type": "capture", "version": 1, "tool": "make-synthetic-capture", "startedAt": "2026-01-01T00:00:00.000Z",
          "bodies": True, "redacted": True, "listen": "127.0.0.1:8080"})
    for ex in range(1, a.exchanges + 1):
        conn = (ex - 1) // 4 + 1
        if (ex - 1) % 4 == 0:
            emit({"type": "conn.open", "t": t, "conn": conn, "peer": "127.0.0.1:50000", "sndbuf": 2626560})
        start = (ex - 1) * per
        last = start + per - 1
        emit({"type": "request", "t": t, "ex": ex, "conn": conn, "method": "GET", "target": url, "version": "HTTP/1.1",
              "url": url, "headers": [f"Host: 127.0.0.1:8081\r\n", f"Range: bytes={start}-{last}\r\n"]})
        t += 100_000
        emit({"type": "response", "t": t, "ex": ex, "status": 206, "reused": (ex - 1) % 4 != 0, "upstreamPort": 40000 + conn,
              "lines": ["HTTP/1.1 206 Partial Content\r\n", f"Content-Range: bytes {start}-{last}/{total}\r\n",
                        f"Content-Length: {per}\r\n", "Content-Type: video/mp4\r\n", "\r\n"]})
        cancelled = ex % 10 == 0
        send = per // 2 if cancelled else per
        h = hashlib.sha256()
        off = 0
        while off < send:
            n = min(a.chunk, send - off)
            p = (start + off) % len(pattern)
            data = (pattern[p:] + pattern[:p])[:n] if p + n > len(pattern) else pattern[p:p + n]
            body.write(data)
            h.update(data)
            t += 5_000
            emit({"type": "chunk", "t": t, "ex": ex, "size": n, "off": off, "res": start + off, "at": at})
            at += n
            off += n
        t += 1_000
        if cancelled:
            emit({"type": "cancel", "t": t, "ex": ex, "delivered": send, "received": send, "sndbuf": 2626560, "sha256": h.hexdigest()})
        else:
            emit({"type": "end", "t": t, "ex": ex, "bytes": send, "sha256": h.hexdigest()})
        if ex % 4 == 0 or ex == a.exchanges:
            emit({"type": "conn.close", "t": t, "conn": conn, "by": "client", "requests": 4})
