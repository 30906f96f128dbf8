#!/usr/bin/env python3
"""tls_close_notify.py - one GET through an intercepting proxy's CONNECT tunnel, then a graceful
TLS close: close_notify, and a wait for the server's own close_notify (ssl.SSLSocket.unwrap).

    tls_close_notify.py --proxy HOST:PORT --connect HOST:PORT --cafile CA --path /f.bin

Prints `status=`, `bytes=`, `unwrap=ok|timeout|error:...` and `unwrap_seconds=` (how long the
server took to answer the close_notify; the wait is bounded by --timeout). Only the addresses
given are contacted. Exit status 0 when the GET got a 200 and the server answered in time.
"""
import argparse
import socket
import ssl
import sys
import time


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--proxy", required=True)
    p.add_argument("--connect", required=True)
    p.add_argument("--cafile", required=True)
    p.add_argument("--path", default="/")
    p.add_argument("--timeout", type=float, default=10.0)
    a = p.parse_args()
    host, port = a.proxy.rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=a.timeout)
    raw.sendall(f"CONNECT {a.connect} HTTP/1.1\r\nHost: {a.connect}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head and len(head) < 65536:
        chunk = raw.recv(4096)
        if not chunk:
            break
        head += chunk
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        print(f"connect={head[:80]!r}")
        return 1
    ctx = ssl.create_default_context(cafile=a.cafile)
    ctx.set_alpn_protocols(["http/1.1"])
    s = ctx.wrap_socket(raw, server_hostname=a.connect.rsplit(":", 1)[0])
    s.sendall(f"GET {a.path} HTTP/1.1\r\nHost: {a.connect}\r\n\r\n".encode())
    data = b""
    length = None
    while True:
        if length is None and b"\r\n\r\n" in data:
            head, _, rest = data.partition(b"\r\n\r\n")
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            status = head.split(b" ")[1].decode()
            body = rest
        if length is not None and len(body) >= length:
            break
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
        if length is not None:
            body += chunk
    print(f"status={status}")
    print(f"bytes={len(body)}")
    t0 = time.monotonic()
    try:
        s.unwrap()
        outcome = "ok"
    except socket.timeout:
        outcome = "timeout"
    except (OSError, ssl.SSLError) as e:
        outcome = f"error:{e}"
    print(f"unwrap={outcome}")
    print(f"unwrap_seconds={time.monotonic() - t0:.3f}")
    raw.close()
    return 0 if status == "200" and outcome == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
