#!/usr/bin/env python3
"""An HTTP/2 (h2c, prior knowledge) client that starts an upload and gives up on it: it sends a
request head declaring --declared body bytes, --send of them, then resets the stream (CANCEL),
waits a moment and closes the connection. Prints nothing; exits 0 once the bytes are sent."""
import argparse, socket, time

import h2.config
import h2.connection
import h2.errors


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True, help="HOST:PORT of rangetap")
    p.add_argument("--authority", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--declared", type=int, required=True)
    p.add_argument("--send", type=int, required=True)
    a = p.parse_args()
    host, port = a.proxy.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sid = conn.get_next_available_stream_id()
    conn.send_headers(sid, [(":method", "POST"), (":scheme", "http"), (":authority", a.authority),
                            (":path", a.path), ("content-length", str(a.declared))])
    conn.send_data(sid, b"x" * a.send)
    sock.sendall(conn.data_to_send())
    time.sleep(0.2)
    conn.reset_stream(sid, error_code=h2.errors.ErrorCodes.CANCEL)
    sock.sendall(conn.data_to_send())
    time.sleep(0.3)
    conn.close_connection()
    sock.sendall(conn.data_to_send())
    sock.close()


if __name__ == "__main__":
    main()
