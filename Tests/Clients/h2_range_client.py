#!/usr/bin/env python3
"""An HTTP/2 client for rangetap's tests (the `h2` package from PyPI).

Opens one connection, through rangetap as a forward proxy (CONNECT, then TLS with ALPN h2) or
straight to it (h2c with prior knowledge), sends several range requests as concurrent streams,
and resets one of them (RST_STREAM CANCEL) once it has read N body bytes, having granted those
bytes back with WINDOW_UPDATE as an application that consumed them would. Prints one JSON object:
{"alpn": ..., "streams": [{"id", "range", "status", "bytes", "sha256", "reset"}]}.
"""
import argparse, hashlib, json, sys, time

import h2.config, h2.connection, h2.events, h2.errors

from h2_tunnel import open_h2


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", help="HOST:PORT of rangetap; with --connect, a forward proxy")
    p.add_argument("--connect", help="HOST:PORT to CONNECT to through the proxy (then TLS)")
    p.add_argument("--cafile", help="CA file trusted for the TLS inside the tunnel")
    p.add_argument("--authority", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--ranges", required=True, help="comma-separated FIRST-LAST")
    p.add_argument("--reset-index", type=int, default=-1)
    p.add_argument("--reset-after", type=int, default=0)
    p.add_argument("--stall-index", type=int, default=-1,
                   help="never grant this stream's window back (a slow consumer); reset it once the others ended")
    p.add_argument("--resume-stalled", action="store_true",
                   help="with --stall-index: once the others ended, read the stalled stream to its end instead of resetting it")
    p.add_argument("--stall-all", type=float, default=0,
                   help="read no stream: grant only the connection window, hold SECONDS once every stream has its response head, then reset them all")
    p.add_argument("--timeout", type=float, default=30)
    a = p.parse_args()

    sock, alpn, scheme = open_h2(a.proxy, a.connect, a.cafile, timeout=a.timeout)
    if a.connect and alpn != "h2":
        print(json.dumps({"alpn": alpn, "streams": []}))
        return

    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    streams = {}
    for i, r in enumerate(a.ranges.split(",")):
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "GET"), (":scheme", scheme), (":authority", a.authority),
                                (":path", a.path), ("range", "bytes=" + r), ("user-agent", "h2-range-client")],
                          end_stream=True)
        streams[sid] = {"id": sid, "range": r, "status": None, "bytes": 0, "sha": hashlib.sha256(),
                        "reset": False, "done": False, "index": i, "endOnData": False}
    sock.sendall(conn.data_to_send())

    deadline = time.time() + a.timeout
    while not all(s["done"] for s in streams.values()) and time.time() < deadline:
        data = sock.recv(65536)
        if not data:
            break
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                streams[ev.stream_id]["status"] = int(dict(ev.headers)[":status"])
            elif isinstance(ev, h2.events.DataReceived):
                s = streams.get(ev.stream_id)
                if s is None or s["done"]:
                    conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                    continue
                s["bytes"] += len(ev.data)
                s["sha"].update(ev.data)
                if ev.stream_ended is not None:
                    s["endOnData"] = len(ev.data) > 0
                if a.stall_all or (s["index"] == a.stall_index and not s.get("resumed")):
                    # The connection's window is granted back (the others go on), the stream's never.
                    conn.increment_flow_control_window(ev.flow_controlled_length)
                elif s["index"] == a.reset_index:
                    # Grant back exactly what was read, then cancel once past N.
                    conn.increment_flow_control_window(ev.flow_controlled_length, stream_id=ev.stream_id)
                    conn.increment_flow_control_window(ev.flow_controlled_length)
                    if s["bytes"] >= a.reset_after:
                        conn.reset_stream(ev.stream_id, error_code=h2.errors.ErrorCodes.CANCEL)
                        s["reset"] = True
                        s["done"] = True
                else:
                    conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                if ev.stream_id in streams:
                    streams[ev.stream_id]["done"] = True
            elif isinstance(ev, h2.events.StreamReset):
                if ev.stream_id in streams:
                    streams[ev.stream_id]["done"] = True
        if a.stall_all and all(s["status"] is not None or s["done"] for s in streams.values()):
            # Every stream has its head (rangetap's body budget may keep a stream's body back
            # while the others hold it): hold them all, then cancel them all.
            out = conn.data_to_send()
            if out:
                sock.sendall(out)
            time.sleep(a.stall_all)
            for s in streams.values():
                if not s["done"]:
                    conn.reset_stream(s["id"], error_code=h2.errors.ErrorCodes.CANCEL)
                    s["reset"] = True
                    s["done"] = True
        stalled = [s for s in streams.values() if s["index"] == a.stall_index and not s["done"] and not s.get("resumed")]
        if stalled and all(s["done"] for s in streams.values() if s["index"] != a.stall_index):
            # Hold the stalled stream a moment (the proxy must pause its transfer), then cancel it
            # or, with --resume-stalled, read it from now on.
            out = conn.data_to_send()
            if out:
                sock.sendall(out)
            time.sleep(1.0)
            if a.resume_stalled:
                # Grant back all it has sent so far; later DATA is acknowledged as it comes.
                stalled[0]["resumed"] = True
                if stalled[0]["bytes"]:
                    conn.increment_flow_control_window(stalled[0]["bytes"], stream_id=stalled[0]["id"])
            else:
                conn.reset_stream(stalled[0]["id"], error_code=h2.errors.ErrorCodes.CANCEL)
                stalled[0]["reset"] = True
                stalled[0]["done"] = True
        out = conn.data_to_send()
        if out:
            sock.sendall(out)
    # Let the proxy see the reset settle before the connection goes.
    time.sleep(0.3)
    conn.close_connection()
    sock.sendall(conn.data_to_send())
    sock.close()
    print(json.dumps({"alpn": alpn, "streams": [
        {"id": s["id"], "range": s["range"], "status": s["status"], "bytes": s["bytes"],
         "sha256": s["sha"].hexdigest(), "reset": s["reset"], "endOnData": s["endOnData"]}
        for s in streams.values()]}))


if __name__ == "__main__":
    main()
