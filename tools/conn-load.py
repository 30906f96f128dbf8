#!/usr/bin/env python3
"""conn-load.py - many HTTP/1.1 client connections through a forward proxy on 127.0.0.1.

Standard library only (asyncio), and the `h2` package for --scheme h2. With --scheme http (the
default) every request is the absolute form
    GET http://127.0.0.1:ORIGIN/PATH?c=I HTTP/1.1
with a Host header, sent to the proxy at 127.0.0.1:PROXY; I numbers the connections from 0, so
the capture can be matched to the clients one for one. With --scheme https or h2 each connection
asks the proxy for `CONNECT 127.0.0.1:ORIGIN`, makes a TLS handshake through the tunnel trusting
--ca (the proxy's CA: it intercepts, with a leaf for the IP address), offering ALPN http/1.1 or
h2, and sends `GET /PATH?c=I` as HTTP/1.1 or as one HTTP/2 stream. Only 127.0.0.1 is ever
contacted.

Modes:
  idle   Warms the proxy with --warmup short connections, reads the memory of --pid (VmRSS,
         VmHWM, RssAnon from /proc/PID/status, and its open descriptors), opens --count keep-alive
         connections that each complete one GET and then stay open and idle, waits --settle
         seconds, reads the memory again, checks that every connection is still open, closes them.
  burst  --count connections, at most --concurrency in flight, each one GET, then a close by the
         client. Counts errors: connect failures, timeouts, a status other than 200, a body shorter
         or longer than --size, a body whose SHA-256 is not --sha256 (when given).

Output: `key=value` lines on stdout (the numbers), a few `error=` lines with the first failures.
Bounded: every loop runs at most --count times and the whole run ends by --deadline seconds
(exit status 3 then). Exit status 0 when there was no error, 1 otherwise, 2 for bad arguments.
"""
import argparse
import asyncio
import hashlib
import os
import ssl
import sys
import time

HOST = "127.0.0.1"


def read_status(pid):
    """VmRSS, VmHWM and RssAnon in KiB and the number of open descriptors of a process."""
    out = {"rss_kib": 0, "hwm_kib": 0, "anon_kib": 0, "fds": 0}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                out["rss_kib"] = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                out["hwm_kib"] = int(line.split()[1])
            elif line.startswith("RssAnon:"):
                out["anon_kib"] = int(line.split()[1])
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


class Fetch:
    """One client connection: connect, one GET, read the whole response."""

    def __init__(self, args, index):
        self.args = args
        self.index = index
        self.reader = None
        self.writer = None

    async def run(self):
        """Returns None on success, else a short description of what went wrong."""
        a = self.args
        t = a.op_timeout
        try:
            self.reader, self.writer = await asyncio.wait_for(asyncio.open_connection(HOST, a.proxy_port), t)
        except asyncio.TimeoutError:
            return "connect: timeout"
        except OSError as e:
            return f"connect: {e.strerror or e}"
        authority = f"{HOST}:{a.origin_port}"
        if a.scheme == "http":
            req = (f"GET http://{authority}{a.path}?c={self.index} HTTP/1.1\r\n"
                   f"Host: {authority}\r\nUser-Agent: conn-load\r\n\r\n").encode()
        else:
            err = await self.tunnel(authority)
            if err:
                return err
            if a.scheme == "h2":
                return await self.h2_get(authority)
            req = (f"GET {a.path}?c={self.index} HTTP/1.1\r\n"
                   f"Host: {authority}\r\nUser-Agent: conn-load\r\n\r\n").encode()
        head, err = await self.send_for_head(req, "head", "the response head")
        if err:
            return err
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or parts[1] != "200":
            return f"status: {lines[0]!r}"
        length = None
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            return "head: no Content-Length"
        if length != a.size:
            return f"head: Content-Length {length}, expected {a.size}"
        try:
            body = await asyncio.wait_for(self.reader.readexactly(length), t)
        except asyncio.TimeoutError:
            return "body: timeout"
        except asyncio.IncompleteReadError as e:
            return f"body: short, {len(e.partial)} of {length} bytes"
        except OSError as e:
            return f"body: {e}"
        if a.sha256 and hashlib.sha256(body).hexdigest() != a.sha256:
            return "body: SHA-256 differs"
        return None

    async def send_for_head(self, request, kind, what):
        """Sends `request` and reads up to the end of the head that answers it: (head, None), or
        (None, "KIND: what went wrong")."""
        t = self.args.op_timeout
        try:
            self.writer.write(request)
            await asyncio.wait_for(self.writer.drain(), t)
            return await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), t), None
        except asyncio.TimeoutError:
            return None, f"{kind}: timeout"
        except asyncio.IncompleteReadError:
            return None, f"{kind}: connection closed before {what}"
        except (OSError, asyncio.LimitOverrunError) as e:
            return None, f"{kind}: {e}"

    async def tunnel(self, authority):
        """CONNECT through the proxy, then TLS inside the tunnel; None, or what went wrong."""
        a = self.args
        t = a.op_timeout
        head, err = await self.send_for_head(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode(),
                                             "connect-tunnel", "the proxy's answer")
        if err:
            return err
        status = head.split(b"\r\n", 1)[0].decode("latin-1")
        if status.split(" ")[1:2] != ["200"]:
            return f"connect-tunnel: {status!r}"
        try:
            await asyncio.wait_for(self.writer.start_tls(self.args.tls_context, server_hostname=HOST), t)
        except asyncio.TimeoutError:
            return "tls: handshake timeout"
        except (OSError, ssl.SSLError) as e:
            return f"tls: {e}"
        chosen = self.writer.get_extra_info("ssl_object").selected_alpn_protocol()
        wanted = "h2" if a.scheme == "h2" else "http/1.1"
        if chosen not in (wanted, None if wanted == "http/1.1" else wanted):
            return f"tls: ALPN chose {chosen!r}, not {wanted}"
        return None

    async def h2_get(self, authority):
        """One GET as stream 1 of an HTTP/2 connection; the connection stays open."""
        import h2.config
        import h2.connection
        import h2.events
        a = self.args
        t = a.op_timeout
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        conn.initiate_connection()
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(b":method", b"GET"), (b":scheme", b"https"), (b":authority", authority.encode()),
                                (b":path", f"{a.path}?c={self.index}".encode()), (b"user-agent", b"conn-load")],
                          end_stream=True)
        status = None
        body = bytearray()
        try:
            self.writer.write(conn.data_to_send())
            await asyncio.wait_for(self.writer.drain(), t)
            for _ in range(100_000):  # bounded: one read per frame batch
                data = await asyncio.wait_for(self.reader.read(65536), t)
                if not data:
                    return f"body: connection closed after {len(body)} bytes" if status else "head: connection closed"
                for ev in conn.receive_data(data):
                    if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                        status = dict(ev.headers).get(b":status", b"?").decode()
                        if status != "200":
                            return f"status: {status}"
                    elif isinstance(ev, h2.events.DataReceived) and ev.stream_id == sid:
                        body += ev.data
                        conn.acknowledge_received_data(ev.flow_controlled_length, sid)
                    elif isinstance(ev, h2.events.StreamReset) and ev.stream_id == sid:
                        return f"body: stream reset ({ev.error_code})"
                    elif isinstance(ev, h2.events.ConnectionTerminated):
                        return f"body: GOAWAY ({ev.error_code})"
                    elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == sid:
                        out = conn.data_to_send()
                        if out:
                            self.writer.write(out)
                        if len(body) != a.size:
                            return f"body: {len(body)} bytes, expected {a.size}"
                        if a.sha256 and hashlib.sha256(body).hexdigest() != a.sha256:
                            return "body: SHA-256 differs"
                        return None
                out = conn.data_to_send()
                if out:
                    self.writer.write(out)
                    await asyncio.wait_for(self.writer.drain(), t)
            return "body: too many reads"
        except asyncio.TimeoutError:
            return "body: timeout" if status else "head: timeout"
        except (OSError, ssl.SSLError) as e:
            return f"body: {e}"

    def close(self):
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def pool(args, count, concurrency, job):
    """Runs job(i) for i in 0..count-1, at most `concurrency` at once; returns the results."""
    results = [None] * count
    next_index = 0

    async def worker():
        nonlocal next_index
        for _ in range(count):  # bounded: at most count jobs per worker
            if next_index >= count:
                return
            i = next_index
            next_index += 1
            results[i] = await job(i)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, count))))
    return results


def report_errors(errors):
    kinds = {}
    for e in errors:
        kinds[e.split(":", 1)[0]] = kinds.get(e.split(":", 1)[0], 0) + 1
    for k in sorted(kinds):
        print(f"errors_{k}={kinds[k]}")
    for e in errors[:5]:
        print(f"error={e}")


async def idle(args):
    async def short(i):
        f = Fetch(args, 1_000_000 + i)
        err = await f.run()
        f.close()
        return err

    warm = [e for e in await pool(args, args.warmup, min(args.concurrency, 50), short) if e]
    await asyncio.sleep(args.settle)
    before = read_status(args.pid)

    fetches = [Fetch(args, i) for i in range(args.count)]

    async def keep(i):
        return await fetches[i].run()

    errs = [e for e in await pool(args, args.count, args.concurrency, keep) if e]
    await asyncio.sleep(args.settle)
    after = read_status(args.pid)
    still_open = sum(1 for f in fetches if f.reader is not None and not f.reader.at_eof())
    for f in fetches:
        f.close()
    await asyncio.sleep(0.2)

    n = args.count
    print(f"warmup_errors={len(warm)}")
    print(f"connections={n}")
    print(f"ok={n - len(errs)}")
    print(f"errors={len(errs)}")
    print(f"still_open={still_open}")
    for k in ("rss_kib", "hwm_kib", "anon_kib", "fds"):
        print(f"before_{k}={before[k]}")
        print(f"after_{k}={after[k]}")
    print(f"kib_per_connection={(after['rss_kib'] - before['rss_kib']) / n:.1f}")
    print(f"anon_kib_per_connection={(after['anon_kib'] - before['anon_kib']) / n:.1f}")
    print(f"fds_per_connection={(after['fds'] - before['fds']) / n:.2f}")
    report_errors(errs + warm)
    return 0 if not errs and not warm and still_open == n else 1


async def burst(args):
    async def one(i):
        f = Fetch(args, i)
        err = await f.run()
        f.close()
        return err

    t0 = time.monotonic()
    errs = [e for e in await pool(args, args.count, args.concurrency, one) if e]
    elapsed = time.monotonic() - t0
    await asyncio.sleep(0.2)
    print(f"connections={args.count}")
    print(f"ok={args.count - len(errs)}")
    print(f"errors={len(errs)}")
    print(f"seconds={elapsed:.2f}")
    report_errors(errs)
    return 0 if not errs else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["idle", "burst"])
    p.add_argument("--proxy-port", type=int, required=True)
    p.add_argument("--origin-port", type=int, required=True)
    p.add_argument("--path", default="/16k.bin")
    p.add_argument("--scheme", choices=["http", "https", "h2"], default="http",
                   help="http: absolute-form GETs; https, h2: CONNECT and TLS through the proxy")
    p.add_argument("--ca", help="https, h2: the proxy's CA certificate (PEM) to trust")
    p.add_argument("--size", type=int, required=True, help="expected body length")
    p.add_argument("--sha256", default="", help="expected body SHA-256 (hex)")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--concurrency", type=int, default=200)
    p.add_argument("--warmup", type=int, default=50, help="idle: short connections before the first reading")
    p.add_argument("--settle", type=float, default=2.0, help="idle: seconds to wait before each reading")
    p.add_argument("--pid", type=int, help="idle: the process whose memory is read")
    p.add_argument("--op-timeout", type=float, default=30.0, help="seconds for each connect, head, body")
    p.add_argument("--deadline", type=float, default=300.0, help="seconds for the whole run")
    args = p.parse_args()
    if not (1 <= args.count <= 100_000 and 1 <= args.concurrency <= 10_000 and 0 <= args.warmup <= 10_000):
        p.error("--count 1..100000, --concurrency 1..10000, --warmup 0..10000")
    if args.mode == "idle" and args.pid is None:
        p.error("idle needs --pid")
    if args.scheme != "http":
        if not args.ca:
            p.error(f"--scheme {args.scheme} needs --ca")
        if args.scheme == "h2":
            try:
                import h2  # noqa: F401
            except ImportError:
                p.error("--scheme h2 needs the Python h2 package (python3 -m pip install h2)")
        try:
            ctx = ssl.create_default_context(cafile=args.ca)
        except (OSError, ssl.SSLError) as e:
            p.error(f"--ca {args.ca}: {e}")
        ctx.set_alpn_protocols(["h2"] if args.scheme == "h2" else ["http/1.1"])
        args.tls_context = ctx
    run = idle if args.mode == "idle" else burst
    try:
        return asyncio.run(asyncio.wait_for(run(args), args.deadline))
    except asyncio.TimeoutError:
        print(f"deadline={args.deadline}")
        print(f"error=the run did not finish within {args.deadline} s")
        return 3


if __name__ == "__main__":
    sys.exit(main())
