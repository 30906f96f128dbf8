#!/usr/bin/env python3
"""An HTTP/2 (h2c, prior knowledge) client whose upload stalls: stream 1 is a POST declaring
--declared body bytes of which it sends --send, then nothing; it reads what comes back on
stream 1 (a response, a reset) until --wait seconds pass, then asks for --then on a new stream of
the same connection. Prints one JSON object:
{"stalled": {"status", "reset"}, "then": {"status", "bytes"}, "goaway": bool}."""
import argparse, json, socket, time

import h2.config
import h2.connection
import h2.events


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True, help="HOST:PORT of rangetap")
    p.add_argument("--authority", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--declared", type=int, required=True)
    p.add_argument("--send", type=int, required=True)
    p.add_argument("--then", required=True, help="path to GET afterwards on the same connection")
    p.add_argument("--wait", type=float, default=10)
    a = p.parse_args()
    host, port = a.proxy.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=a.wait + 10)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    out = {"stalled": {"status": None, "reset": None}, "then": {"status": None, "bytes": 0}, "goaway": False}
    stalled = conn.get_next_available_stream_id()
    conn.send_headers(stalled, [(":method", "POST"), (":scheme", "http"), (":authority", a.authority),
                                (":path", a.path), ("content-length", str(a.declared))])
    conn.send_data(stalled, b"x" * a.send)
    sock.sendall(conn.data_to_send())
    then = None
    deadline = time.monotonic() + a.wait
    done = False
    while not done and time.monotonic() < deadline + 10:
        sock.settimeout(max(0.05, deadline - time.monotonic()) if then is None else 10)
        try:
            data = sock.recv(65536)
        except socket.timeout:
            data = None
        if data == b"":
            break
        events = conn.receive_data(data) if data else []
        for ev in events:
            if isinstance(ev, h2.events.ResponseReceived):
                status = int(dict(ev.headers)[":status"])
                if ev.stream_id == stalled:
                    out["stalled"]["status"] = status
                else:
                    out["then"]["status"] = status
            elif isinstance(ev, h2.events.DataReceived):
                conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                if ev.stream_id == then:
                    out["then"]["bytes"] += len(ev.data)
            elif isinstance(ev, h2.events.StreamReset) and ev.stream_id == stalled:
                out["stalled"]["reset"] = int(ev.error_code)
            elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == then:
                done = True
            elif isinstance(ev, h2.events.ConnectionTerminated):
                out["goaway"] = True
                done = True
        if then is None and (out["stalled"]["reset"] is not None or time.monotonic() >= deadline):
            then = conn.get_next_available_stream_id()
            conn.send_headers(then, [(":method", "GET"), (":scheme", "http"), (":authority", a.authority),
                                     (":path", a.then)], end_stream=True)
        pending = conn.data_to_send()
        if pending:
            sock.sendall(pending)
    print(json.dumps(out))
    sock.close()


if __name__ == "__main__":
    main()
