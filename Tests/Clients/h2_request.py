#!/usr/bin/env python3
"""One HTTP/2 (h2c, prior knowledge) request straight to rangetap, with the pseudo-header fields,
fields, declared content-length and body the test asks for, byte for byte (values as bytes, so
they need not be UTF-8). Prints one JSON object: {"status", "body", "reset"}."""
import argparse, json, socket, time

import h2.config
import h2.connection
import h2.events


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True, help="HOST:PORT of rangetap")
    p.add_argument("--authority", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--method", default="GET")
    p.add_argument("--header", action="append", default=[], help="name=value (value may hold \\xHH escapes)")
    p.add_argument("--body", type=int, default=0, help="body bytes to send")
    p.add_argument("--declared", type=int, default=-1, help="content-length to declare (-1: none)")
    p.add_argument("--split", type=int, default=0,
                   help="send the body's first SPLIT bytes in a DATA frame of their own, the rest 0.3 s later")
    a = p.parse_args()
    host, port = a.proxy.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, validate_outbound_headers=False,
                                                                        normalize_outbound_headers=False))
    conn.initiate_connection()
    sid = conn.get_next_available_stream_id()
    headers = [(b":method", a.method.encode()), (b":scheme", b"http"), (b":authority", a.authority.encode()),
               (b":path", a.path.encode())]
    if a.declared >= 0:
        headers.append((b"content-length", str(a.declared).encode()))
    for h in a.header:
        name, value = h.split("=", 1)
        headers.append((name.encode(), value.encode("latin-1").decode("unicode_escape").encode("latin-1")))
    conn.send_headers(sid, headers, end_stream=a.body == 0)
    if a.body and 0 < a.split < a.body:
        conn.send_data(sid, b"x" * a.split, end_stream=False)
        sock.sendall(conn.data_to_send())
        time.sleep(0.3)
        conn.send_data(sid, b"x" * (a.body - a.split), end_stream=True)
    elif a.body:
        conn.send_data(sid, b"x" * a.body, end_stream=True)
    sock.sendall(conn.data_to_send())
    out = {"status": None, "body": "", "reset": None}
    deadline = time.monotonic() + 10
    done = False
    while not done and time.monotonic() < deadline:
        data = sock.recv(65536)
        if not data:
            break
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                out["status"] = int(dict(ev.headers)[b":status"])
            elif isinstance(ev, h2.events.DataReceived) and ev.stream_id == sid:
                conn.acknowledge_received_data(ev.flow_controlled_length, sid)
                out["body"] += ev.data.decode("utf-8", "replace")
            elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == sid:
                done = True
            elif isinstance(ev, h2.events.StreamReset) and ev.stream_id == sid:
                out["reset"] = int(ev.error_code)
                done = True
        pending = conn.data_to_send()
        if pending:
            sock.sendall(pending)
    print(json.dumps(out))
    sock.close()


if __name__ == "__main__":
    main()
