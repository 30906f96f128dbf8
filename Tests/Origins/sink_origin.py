#!/usr/bin/env python3
"""sink_origin.py - an HTTP/1.1 origin that reads request bodies and throws them away.

Standard library only, raw sockets, one thread per connection, 127.0.0.1 only.  For the
benchmarks of endless uploads (tools/bench-memory.sh): whatever reaches it is counted, nothing
is kept.

Usage:
    python3 sink_origin.py --port N [--total FILE] [--log FILE]

--port 0 picks an ephemeral port.  Prints "PORT <number>" once listening, then serves until
SIGTERM/SIGINT.  Every request's body (Content-Length or chunked) is read and discarded; once it
ends the answer is 200 with the body's byte count as text ("received N\\n").  A request without a
body (GET) gets "sink\\n".  With --total, FILE holds the body bytes received so far on all
connections (a decimal number, rewritten every 0.2 s while it changes, and at exit).  With
--log, one line per request whose body ended is appended to FILE: "METHOD TARGET BYTES".
"""
import argparse, os, signal, socket, sys, threading, time

TOTAL = 0
LOCK = threading.Lock()
LOG = None


def count(n):
    global TOTAL
    with LOCK:
        TOTAL += n


class Conn:
    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def fill(self):
        data = self.sock.recv(262144)
        if not data:
            raise EOFError
        self.buf += data

    def line(self):
        while b"\n" not in self.buf:
            if len(self.buf) > 65536:
                raise EOFError
            self.fill()
        i = self.buf.index(b"\n") + 1
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def discard(self, n):
        """Reads n bytes and drops them, counting each piece as it comes."""
        while n > 0:
            if not self.buf:
                self.fill()
            take = min(n, len(self.buf))
            self.buf = self.buf[take:]
            count(take)
            n -= take


def serve(sock):
    c = Conn(sock)
    try:
        while True:
            head = [c.line()]
            while head[-1].strip():
                head.append(c.line())
            length, chunked = 0, False
            for l in head[1:]:
                name, _, value = l.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip() or b"0")
                elif name.strip().lower() == b"transfer-encoding" and b"chunked" in value.lower():
                    chunked = True
            got = 0
            if chunked:
                while True:
                    size = int(c.line().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while c.line().strip():  # trailers, up to the blank line
                            pass
                        break
                    c.discard(size)
                    got += size
                    c.line()  # the CRLF after the chunk
            else:
                c.discard(length)
                got = length
            body = b"received %d\n" % got if (chunked or length) else b"sink\n"
            if LOG:
                parts = head[0].split(b" ")
                with LOCK, open(LOG, "ab") as f:
                    f.write(b"%s %s %d\n" % (parts[0], parts[1] if len(parts) > 1 else b"-", got))
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    except (EOFError, OSError, ValueError):
        pass
    finally:
        sock.close()


def write_total(path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % TOTAL)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--total", help="file to keep the running total of body bytes received in")
    p.add_argument("--log", help="file to append a line to for every request whose body ended")
    a = p.parse_args()
    global LOG
    LOG = a.log
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", a.port))
    s.listen(256)

    def bye(*_):
        if a.total:
            write_total(a.total)
        os._exit(0)

    signal.signal(signal.SIGTERM, bye)
    signal.signal(signal.SIGINT, bye)
    if a.total:
        write_total(a.total)

        def writer():
            last = 0
            while True:
                time.sleep(0.2)
                if TOTAL != last:
                    last = TOTAL
                    write_total(a.total)

        threading.Thread(target=writer, daemon=True).start()
    print("PORT %d" % s.getsockname()[1], flush=True)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
