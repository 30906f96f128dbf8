#!/usr/bin/env python3
"""Write a Mahimahi packet-delivery trace for `rangetap record --shape-trace`.

Usage: tools/make-trace.py SECONDS:RATE [SECONDS:RATE ...] > NAME.trace

Each SECONDS:RATE segment holds the link at RATE (bits per second, written as rangetap's
--shape rate=: 300kbit, 1.5mbit, 4mbit) for SECONDS. Opportunities (one 1500-byte packet each,
one line each, in ms since the start) are spread evenly: by the end of millisecond t the trace
has delivered floor(bits carried by t / 12000) packets, so each segment's average rate is exact
to within one packet. The trace's period is its last timestamp, so the last segment's end is
always written as a timestamp (Mahimahi repeats the trace after it).

The shipped traces were made with:
  tools/make-trace.py 3:4mbit > tools/traces/steady-4mbit.trace
      4 Mbit/s for 3 s: 1000 packets, one every 3 ms.
  tools/make-trace.py 4:1.5mbit 4:300kbit 4:1.5mbit > tools/traces/drop-1500kbit-300kbit.trace
      a 3G-like link: 4 s at 1.5 Mbit/s, a drop to 300 kbit/s for 4 s, then recovery for 4 s.

The output starts with '#' comment lines saying how it was made; rangetap ignores them (plain
Mahimahi does not: strip them with `grep -v '^#'` before using the trace with mm-link).
"""
import re
import sys

PACKET_BITS = 1500 * 8
UNITS = {"bit": 1, "kbit": 1000, "mbit": 1000_000, "gbit": 1000_000_000}


def parse_rate(text):
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(bit|kbit|mbit|gbit)", text.strip().lower())
    if not m:
        sys.exit(f"make-trace: {text!r} is not a rate: write bits per second as 300kbit, 1.5mbit or 4mbit")
    return float(m.group(1)) * UNITS[m.group(2)]


def main(args):
    if not args:
        sys.exit(__doc__)
    segments = []
    for arg in args:
        seconds, sep, rate = arg.partition(":")
        try:
            ms = round(float(seconds) * 1000)
        except ValueError:
            ms = 0
        if not sep or ms <= 0:
            sys.exit(f"make-trace: {arg!r} is not SECONDS:RATE (e.g. 4:1.5mbit)")
        segments.append((ms, parse_rate(rate)))

    print("# Mahimahi trace: one line per 1500-byte delivery opportunity, ms since the start")
    print("# made by: tools/make-trace.py " + " ".join(args))
    bits = 0.0  # bits the link could carry by the end of the current millisecond
    sent = 0  # packets written
    t = 0
    lines = []
    for ms, rate in segments:
        for _ in range(ms):
            t += 1
            bits += rate / 1000
            due = int(bits // PACKET_BITS)
            lines.extend([t] * (due - sent))
            sent = due
    if not lines or lines[-1] != t:
        lines.append(t)  # the period: the trace repeats after its last timestamp
    print("\n".join(str(x) for x in lines))


if __name__ == "__main__":
    main(sys.argv[1:])
