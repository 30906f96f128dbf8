#!/usr/bin/env python3
"""An HTTP/2 client that cancels a stream the way browsers do (the `h2` package from PyPI).

Through rangetap as a forward proxy (CONNECT, then TLS with ALPN h2), it asks PATH with
`range: bytes=FIRST-` and reads the stream's DATA from the socket until it has READ body bytes,
then cancels it:
  --how reset   RST_STREAM (CANCEL), the connection stays open;
  --how close   the whole connection is closed (TCP FIN), as a tab that goes away.
With --lazy-window it behaves as Chromium does: a 6 MB stream window announced in SETTINGS, the
connection window opened wide, and no WINDOW_UPDATE for the stream before it is cancelled (the
application consumed its bytes, the HTTP/2 layer had no reason to grant them back yet).
Otherwise it grants back every DATA frame as it reads it.

With --then FIRST-LAST (reset only), a second stream, on a new connection, asks that range after
the cancel (a seek) and reads it whole.

--rcvbuf sets the socket's receive buffer before connecting (no autotuning), so what its TCP
acknowledges is at most what it read plus that buffer. Prints one JSON object:
{"read": N, "cancelledAt": UNIX_TIME, "rcvbuf": BYTES, "status": S, "then": {"status", "bytes"}}.
"""
import argparse, json, socket, sys, time

import h2.config, h2.connection, h2.events, h2.errors, h2.settings

from h2_tunnel import open_tunnel


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True, help="HOST:PORT of rangetap")
    p.add_argument("--connect", required=True, help="HOST:PORT to CONNECT to (then TLS)")
    p.add_argument("--cafile", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--read", type=int, required=True)
    p.add_argument("--how", choices=["reset", "close"], default="reset")
    p.add_argument("--lazy-window", action="store_true")
    p.add_argument("--then", help="FIRST-LAST asked on a second stream after the cancel")
    p.add_argument("--rcvbuf", type=int, default=0)
    p.add_argument("--hold", type=float, default=0.5, help="seconds to keep still after the cancel")
    p.add_argument("--timeout", type=float, default=30)
    a = p.parse_args()

    def open_connection(rcvbuf=0):
        sock, size = open_tunnel(a.proxy, a.connect, a.cafile, alpn=("h2",), rcvbuf=rcvbuf, timeout=a.timeout)
        if sock.selected_alpn_protocol() != "h2":
            sys.exit("no h2 in the tunnel")
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        return sock, conn, size

    sock, conn, rcvbuf = open_connection(a.rcvbuf)
    if a.lazy_window:
        conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 6 * 1024 * 1024})
        conn.increment_flow_control_window(15 * 1024 * 1024)

    def ask(sock, conn, first, last=None):
        sid = conn.get_next_available_stream_id()
        r = f"bytes={first}-" + ("" if last is None else str(last))
        conn.send_headers(sid, [(":method", "GET"), (":scheme", "https"), (":authority", a.connect),
                                (":path", a.path), ("range", r), ("user-agent", "h2-cancel-client")], end_stream=True)
        sock.sendall(conn.data_to_send())
        return sid

    out = {"read": 0, "cancelledAt": None, "rcvbuf": rcvbuf, "status": None}
    sid = ask(sock, conn, a.first)
    deadline = time.time() + a.timeout
    while out["read"] < a.read and time.time() < deadline:
        data = sock.recv(16384)
        if not data:
            sys.exit("the proxy closed the connection")
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                out["status"] = int(dict(ev.headers)[":status"])
            elif isinstance(ev, h2.events.DataReceived) and ev.stream_id == sid:
                out["read"] += len(ev.data)
                if not a.lazy_window:
                    conn.acknowledge_received_data(ev.flow_controlled_length, sid)
        pending = conn.data_to_send()
        if pending:
            sock.sendall(pending)
    if a.how == "close":
        out["cancelledAt"] = time.time()
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        time.sleep(a.hold)
        print(json.dumps(out))
        return
    conn.reset_stream(sid, error_code=h2.errors.ErrorCodes.CANCEL)
    sock.sendall(conn.data_to_send())
    out["cancelledAt"] = time.time()
    # Still: the proxy reads what the client's TCP acknowledged while the receive buffer is full.
    time.sleep(a.hold)
    conn.close_connection()
    sock.sendall(conn.data_to_send())
    time.sleep(0.2)
    sock.close()
    if a.then:
        # The seek, on a new connection: this h2 package answers every DATA frame still in flight
        # on the reset stream with a RST_STREAM of its own, which browsers do not do and NIO's
        # Rapid Reset guard takes for an attack.
        sock, conn, _ = open_connection()
        first, last = (int(x) for x in a.then.split("-"))
        second = ask(sock, conn, first, last)
        got = {"status": None, "bytes": 0}
        done = False
        while not done and time.time() < deadline:
            data = sock.recv(65536)
            if not data:
                break
            for ev in conn.receive_data(data):
                if isinstance(ev, h2.events.DataReceived):
                    conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                    if ev.stream_id == second:
                        got["bytes"] += len(ev.data)
                elif isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == second:
                    got["status"] = int(dict(ev.headers)[":status"])
                elif isinstance(ev, (h2.events.StreamEnded, h2.events.StreamReset)) and ev.stream_id == second:
                    done = True
            pending = conn.data_to_send()
            if pending:
                sock.sendall(pending)
        out["then"] = got
        conn.close_connection()
        sock.sendall(conn.data_to_send())
        time.sleep(0.2)
        sock.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
