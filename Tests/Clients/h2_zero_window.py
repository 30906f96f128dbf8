#!/usr/bin/env python3
"""An HTTP/2 client that reads nothing at all (the `h2` package from PyPI), for
tools/bench-memory.sh.

Opens one connection, through rangetap as a forward proxy (CONNECT, then TLS with ALPN h2) or
straight to it (h2c with prior knowledge), sends --streams range requests at once (stream i asks
for bytes FIRST+i*STEP and the LENGTH after them), and never sends a WINDOW_UPDATE, neither for a
stream nor for the connection: the peer can send 65,535 body bytes in all, then nothing. Once
every stream has its response head (or was reset, or --timeout passed) it writes the number of
heads to --ready FILE, if given, and holds the connection open --hold seconds, or until --release
FILE exists, still answering PING and SETTINGS, then closes it. Prints one JSON object:
{"alpn", "streams", "heads", "statuses": {status: count}, "resets", "bytes", "windowUpdates": 0}.
"""
import argparse, json, os, socket, time

import h2.config, h2.connection, h2.events

from h2_tunnel import open_h2


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True, help="HOST:PORT of rangetap; with --connect, a forward proxy")
    p.add_argument("--connect", help="HOST:PORT to CONNECT to through the proxy (then TLS)")
    p.add_argument("--cafile", help="CA file trusted for the TLS inside the tunnel")
    p.add_argument("--authority", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--streams", type=int, required=True)
    p.add_argument("--first", type=int, default=0, help="first byte of stream 0's range")
    p.add_argument("--step", type=int, default=65536, help="bytes between the ranges' first bytes")
    p.add_argument("--length", type=int, default=200_000_000, help="bytes in each range")
    p.add_argument("--hold", type=float, default=8)
    p.add_argument("--timeout", type=float, default=30, help="seconds to wait for the heads")
    p.add_argument("--ready", help="file to write the number of heads to once they are in")
    p.add_argument("--release", help="stop holding as soon as this file exists")
    a = p.parse_args()

    sock, alpn, scheme = open_h2(a.proxy, a.connect, a.cafile, timeout=a.timeout)
    if a.connect and alpn != "h2":
        print(json.dumps({"alpn": alpn, "streams": 0, "heads": 0}))
        return

    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    pending = set()
    for i in range(a.streams):
        first = a.first + i * a.step
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "GET"), (":scheme", scheme), (":authority", a.authority),
                                (":path", a.path), ("range", "bytes=%d-%d" % (first, first + a.length - 1)),
                                ("user-agent", "h2-zero-window")], end_stream=True)
        pending.add(sid)
    sock.sendall(conn.data_to_send())

    out = {"alpn": alpn, "streams": a.streams, "heads": 0, "statuses": {}, "resets": 0, "bytes": 0,
           "windowUpdates": 0, "closed": False}
    heads_by = time.monotonic() + a.timeout
    hold_until = None
    while True:
        now = time.monotonic()
        if hold_until is None and (not pending or now >= heads_by):
            hold_until = now + a.hold
            if a.ready:
                with open(a.ready + ".tmp", "w") as f:
                    f.write("%d\n" % out["heads"])
                os.replace(a.ready + ".tmp", a.ready)
        if hold_until is not None and (now >= hold_until or (a.release and os.path.exists(a.release))):
            break
        sock.settimeout(max(0.05, min(0.2, (hold_until or heads_by) - now)))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            out["closed"] = True
            break
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                out["heads"] += 1
                status = dict(ev.headers)[":status"]
                out["statuses"][status] = out["statuses"].get(status, 0) + 1
                pending.discard(ev.stream_id)
            elif isinstance(ev, h2.events.DataReceived):
                out["bytes"] += len(ev.data)  # and never acknowledged: no window goes back
            elif isinstance(ev, h2.events.StreamReset):
                out["resets"] += 1
                pending.discard(ev.stream_id)
            elif isinstance(ev, h2.events.ConnectionTerminated):
                out["closed"] = True
        # Only PING and SETTINGS acknowledgements leave from here on; h2 sends no WINDOW_UPDATE
        # unless the data is acknowledged.
        data = conn.data_to_send()
        if data:
            sock.sendall(data)
        if out["closed"]:
            break
    try:
        conn.close_connection()
        sock.sendall(conn.data_to_send())
        sock.close()
    except OSError:
        pass
    print(json.dumps(out))


if __name__ == "__main__":
    main()
