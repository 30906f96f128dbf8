#!/usr/bin/env python3
"""raw_origin.py - an origin that answers with exact bytes and keeps the exact bytes it got.

Standard library only, raw sockets, 127.0.0.1 only.  For the transparency tests: what a
client receives through rangetap is compared with what this origin sent, and what this
origin received is compared with what the client sent.

Usage:
    python3 raw_origin.py --port N --dir DIR

Prints "PORT <number>" once listening.  A request for /r/NAME (any query ignored) is
answered with the bytes of DIR/NAME.http, verbatim; the request's bytes (head and body,
exactly as received) are written to DIR/NAME.req.  If NAME starts with "close-" the
connection is closed after the response (for close-delimited bodies); otherwise the next
request on the connection is read; if it starts with "reset-" the connection is reset (RST)
right after the response bytes.  Chunked request bodies are read to their last chunk.
"""
import argparse, os, socket, struct, sys, threading, time


def read_until(conn, buf, marker):
    while marker not in buf:
        data = conn.recv(65536)
        if not data:
            return buf, None
        buf += data
    i = buf.index(marker) + len(marker)
    return buf[i:], buf[:i]


def read_head(conn, buf):
    while True:
        for marker in (b"\r\n\r\n", b"\n\n"):
            if marker in buf:
                i = buf.index(marker) + len(marker)
                # the earliest terminator wins
                j = min((buf.index(m) + len(m) for m in (b"\r\n\r\n", b"\n\n") if m in buf))
                return buf[j:], buf[:j]
        data = conn.recv(65536)
        if not data:
            return buf, None
        buf += data


def read_exact(conn, buf, n):
    while len(buf) < n:
        data = conn.recv(65536)
        if not data:
            break
        buf += data
    return buf[n:], buf[:n]


def read_chunked(conn, buf):
    body = b""
    while True:
        buf, line = read_until(conn, buf, b"\n")
        if line is None:
            return buf, body
        body += line
        size = int(line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while True:
                buf, t = read_until(conn, buf, b"\n")
                if t is None:
                    return buf, body
                body += t
                if t.strip() == b"":
                    return buf, body
        buf, data = read_exact(conn, buf, size + 2)
        body += data


def serve(conn, directory):
    buf = b""
    try:
        while True:
            buf, head = read_head(conn, buf)
            if head is None:
                return
            lines = head.split(b"\n")
            target = lines[0].split(b" ")[1].decode("latin-1") if len(lines[0].split(b" ")) > 1 else "/"
            length, chunked = 0, False
            for l in lines[1:]:
                if b":" in l:
                    name, value = l.split(b":", 1)
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip() or b"0")
                    if name.strip().lower() == b"transfer-encoding" and b"chunked" in value.lower():
                        chunked = True
            if chunked:
                buf, body = read_chunked(conn, buf)
            else:
                buf, body = read_exact(conn, buf, length)
            name = target.split("?")[0].rsplit("/", 1)[-1]
            with open(os.path.join(directory, name + ".req"), "wb") as f:
                f.write(head + body)
            try:
                with open(os.path.join(directory, name + ".http"), "rb") as f:
                    response = f.read()
            except FileNotFoundError:
                response = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
            conn.sendall(response)
            if name.startswith("reset-"):
                time.sleep(0.2)  # let the bytes leave before the reset
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            if name.startswith("close-"):
                conn.shutdown(socket.SHUT_WR)
                return
    except OSError:
        return
    finally:
        conn.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--dir", required=True)
    a = p.parse_args()
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", a.port))
    s.listen(64)
    print("PORT %d" % s.getsockname()[1], flush=True)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, a.dir), daemon=True).start()


if __name__ == "__main__":
    main()
