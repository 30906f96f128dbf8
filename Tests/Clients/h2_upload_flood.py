#!/usr/bin/env python3
"""An HTTP/2 (h2c, prior knowledge) client whose uploads never end (the `h2` package from
PyPI), for tools/bench-memory.sh.

Opens one connection straight to rangetap, starts --streams POSTs to --authority/--path with no
content-length, and sends zero-filled DATA on each as fast as the stream's and the connection's
windows allow, for --seconds; a stream that gets a response or a reset stops sending. Then it
resets the streams still open (CANCEL) and closes. Prints one JSON object:
{"streams", "sent", "perStream": [bytes...], "statuses": {status: count}, "resets", "closed"}.
"""
import argparse, json, socket, time

import h2.config, h2.connection, h2.errors, h2.events, h2.exceptions


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True, help="HOST:PORT of rangetap")
    p.add_argument("--authority", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--streams", type=int, default=5)
    p.add_argument("--seconds", type=float, default=8)
    a = p.parse_args()
    host, port = a.proxy.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sent, statuses, resets, closed = {}, {}, 0, False
    for _ in range(a.streams):
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "POST"), (":scheme", "http"), (":authority", a.authority),
                                (":path", a.path), ("content-type", "application/octet-stream"),
                                ("user-agent", "h2-upload-flood")])
        sent[sid] = 0
    sock.sendall(conn.data_to_send())
    open_ = set(sent)
    zeros = bytes(1 << 20)
    deadline = time.monotonic() + a.seconds
    while time.monotonic() < deadline and not closed:
        # Fill every open stream's window (the connection's shared fairly enough: round robin).
        sock.settimeout(10)
        progress = True
        while progress:
            progress = False
            for sid in list(open_):
                n = min(conn.local_flow_control_window(sid), conn.max_outbound_frame_size)
                if n > 0:
                    conn.send_data(sid, zeros[:n])
                    sent[sid] += n
                    progress = True
            data = conn.data_to_send()
            if data:
                sock.sendall(data)
            if time.monotonic() >= deadline:
                break
        sock.settimeout(max(0.01, min(0.5, deadline - time.monotonic())))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            closed = True
            break
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                status = dict(ev.headers)[":status"]
                statuses[status] = statuses.get(status, 0) + 1
                open_.discard(ev.stream_id)
            elif isinstance(ev, h2.events.DataReceived):
                conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamReset):
                resets += 1
                open_.discard(ev.stream_id)
            elif isinstance(ev, h2.events.ConnectionTerminated):
                closed = True
        data = conn.data_to_send()
        if data:
            sock.settimeout(10)
            sock.sendall(data)
    try:
        for sid in open_:
            conn.reset_stream(sid, error_code=h2.errors.ErrorCodes.CANCEL)
        conn.close_connection()
        sock.sendall(conn.data_to_send())
        sock.close()
    except (OSError, h2.exceptions.ProtocolError):
        pass
    print(json.dumps({"streams": a.streams, "sent": sum(sent.values()), "perStream": list(sent.values()),
                      "statuses": statuses, "resets": resets, "closed": closed}))


if __name__ == "__main__":
    main()
