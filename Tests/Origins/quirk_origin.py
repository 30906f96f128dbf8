#!/usr/bin/env python3
"""quirk_origin.py - a deliberately non-conforming HTTP/1.1 origin for rangetap tests.

Standard library only, raw sockets (no http.server) so every byte on the wire is
exactly what the mode below says.  Binds 127.0.0.1 only.

Usage:
    python3 quirk_origin.py --port N [--size BYTES]

--port 0 picks an ephemeral port.  Once listening it prints exactly one line
"PORT <number>" to stdout (flushed), then serves until SIGTERM/SIGINT (exit 0).

Resource: SIZE bytes (default 1048576) where

    byte[i] = (i * 7 + i // 256) % 256

Modes (by path; any query string is ignored for routing):
  /normal            correct RFC 9110: 200, 206 + Content-Range, 416 bytes */LEN
  /lowercase         like normal, header names accept-ranges, Content-range,
                     content-Length, Content-type
  /no-accept-ranges  like normal, no Accept-Ranges header (still answers 206)
  /ignore-range      always 200 with the full body, no Accept-Ranges
  /slow              like normal, body in 4096-byte pieces with 20 ms sleeps
                     (?delay_ms=N&piece=M override)
  /drop              normal head, then half the promised body, then shutdown+close
  /bare-lf           like normal, every head line (and the blank line) ends in "\\n"
  /space-before-colon like normal, but the Content-Range line has a space before its colon
                     ("Content-Range : bytes a-b/LEN", RFC 9112 section 5.1 forbids it)
  /obs-fold          like normal + "X-Folded: part one" continued on a line "\\tpart two"
                     (an obs-fold, RFC 9112 section 5.2)
  /dup               like normal + "X-Dup: one", "x-dup: two", and a second
                     "content-type: application/octet-stream" after Content-Type
  /chunked           200/206 with Transfer-Encoding: chunked, 10000-byte chunks
  /close             like normal + "Connection: close", closes afterwards
  /http10            status line HTTP/1.0, closes after the body
  /interim           "103 Early Hints" (Link: </style.css>; rel=preload) first
  /wrong-range       like normal, but a 206's Content-Range starts one byte later than the
                     bytes it carries (bytes a+1-b/LEN for the body of a-b)
  /no-content-range  like normal, but a 206 carries no Content-Range
  /bad-416           like normal, but a 416 carries no Content-Range (no */LEN)
  /echo              200 text/plain, body = exact request head bytes as received
  /huge-header       200 whose head carries one 10 MB header line (X-Huge: aaa...), past
                     libcurl's 100 KB limit per header line (?kb=N for N KB)
  /status/NNN        status NNN (200-599), Content-Length: 0 (none for 204/304)
  /strict            everything `rangetap probe` checks done right (RFC 9110): ETag
                     "rt-strict-SIZE" and Last-Modified (strong) on every response,
                     If-Range honoured, Range ignored on HEAD, the full range-set grammar
                     (units case-insensitive, no stray spaces, invalid sets ignored -> 200),
                     end past the length clamped, 416 with bytes */LEN, several ranges as
                     multipart/byteranges (one part per range, in request order), HTTP/1.0
                     ranges, keep-alive on HTTP/1.1 and on HTTP/1.0 + Connection: keep-alive,
                     identity encoding only
  /strict/DEFECT     /strict with exactly one defect, for the probe's tests:
      head-206         HEAD with a Range answered 206
      206-no-etag      206 responses without the ETag the 200 carries
      if-range-etag    If-Range with an entity-tag ignored (stale ETag -> 206)
      if-range-date    If-Range with a date ignored (old date -> 206)
      clamp-416        416 for a range whose end is past the length (not clamped)
      416-no-length    416 without Content-Range: bytes */LEN
      multi-200        several ranges answered 200 with the whole body
      multi-coalesce   several ranges answered as one 206 spanning them all
      multi-bad-part   multipart/byteranges whose second part's Content-Range starts one
                       byte after the bytes it carries
      suffix-wrong     bytes=-N served as the first N bytes (Content-Range 0-(N-1))
      unit-case        range unit matched case-sensitively (Bytes=0-1 -> 200)
      http10-no-range  Range ignored on HTTP/1.0 requests (200)
      close            "Connection: close" on every response, then closes
      close-silently   closes after every response without saying so (no
                       Connection: close; HTTP/1.0 keep-alive not offered)
      gzip-mismatch    with Accept-Encoding: gzip, a 206 is gzip(identity slice) with the
                       identity Content-Range, the 200 is gzip(whole body)
      lowercase        names Content-type, accept-ranges, Content-range, content-Length
      dup              a second, conflicting "Content-Type: application/octet-stream" line
      bare-lf          every head line (and the blank line) ends in "\\n"
      space-before-colon  "Content-Range : ..." (whitespace before the colon)
      obs-fold         "X-Folded: part one" folded onto a continuation line "\\tpart two"
      recent-lm        Last-Modified 10 s before the origin started (so less than a minute
                       before Date), and If-Range with that date is treated as weak the way
                       Apache does: 200 while Date is less than 60 s after Last-Modified
      unquoted-etag    ETag rt-strict-SIZE without quotes (malformed, RFC 9110 8.8.3)
      no-accept-ranges no Accept-Ranges header (ranges still answered)
  anything else      404 with a short body

Ranges: single range "bytes=a-b", "bytes=a-", "bytes=-n" (only the first range
of a list is used; syntactically invalid Range headers are ignored -> 200).
Keep-alive is the HTTP/1.1 default; the connection closes after a response when
the client sent "Connection: close" (or spoke HTTP/1.0 without keep-alive) or
when the mode closes.  One stderr line per request:
    quirk: METHOD TARGET range=... -> STATUS bytes=N   (body bytes really written)
"""
import argparse
import gzip
import http
import re
import signal
import socket
import socketserver
import sys
import time
from email.utils import formatdate
from urllib.parse import parse_qs, urlsplit

MAX_HEAD = 64 * 1024
RESOURCE = b""  # filled in main()

NAMES = {"ct": "Content-Type", "ar": "Accept-Ranges", "cr": "Content-Range", "cl": "Content-Length"}
LOWER = {"ct": "Content-type", "ar": "accept-ranges", "cr": "Content-range", "cl": "content-Length"}
RESOURCE_MODES = {"normal", "lowercase", "no-accept-ranges", "ignore-range", "slow", "drop",
                  "bare-lf", "dup", "chunked", "close", "http10", "interim",
                  "wrong-range", "no-content-range", "bad-416", "space-before-colon", "obs-fold"}
RANGE_RE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", re.I)
STRICT_LAST_MODIFIED = "Mon, 01 Jan 2024 00:00:00 GMT"
STRICT_DEFECTS = {"head-206", "206-no-etag", "if-range-etag", "if-range-date", "clamp-416", "416-no-length",
                  "multi-200", "multi-coalesce", "multi-bad-part", "suffix-wrong", "unit-case", "http10-no-range",
                  "close", "close-silently", "gzip-mismatch", "lowercase", "dup", "bare-lf",
                  "no-accept-ranges", "space-before-colon", "obs-fold", "recent-lm", "unquoted-etag"}
SPACED = dict(NAMES, cr="Content-Range ")   # "Content-Range : ..." (space before the colon)
FOLDED = ("X-Folded", "part one\r\n\tpart two")   # an obs-fold (CRLF heads only)
RECENT_MTIME = time.time() - 10             # /strict/recent-lm: changed 10 s before start
STRICT_BOUNDARY = "RANGETAPSTRICTBOUNDARY"
SPEC_RE = re.compile(r"^(\d*)-(\d*)$")
_GZIP_FULL = None


def make_resource(size):
    """byte[i] = (i * 7 + i // 256) % 256"""
    return bytes((i * 7 + i // 256) % 256 for i in range(size))


def reason(status):
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Status"


def parse_range(value, size):
    """Return None (no/invalid range -> full 200), 'unsat' (416) or (start, end_exclusive)."""
    if value is None:
        return None
    m = RANGE_RE.match(value.split(",")[0] if "," in value else value)
    if not m or (m.group(1) == "" and m.group(2) == ""):
        return None
    first, last = m.group(1), m.group(2)
    if first == "":                      # bytes=-n (suffix)
        n = int(last)
        return "unsat" if n == 0 or size == 0 else (max(0, size - n), size)
    a = int(first)
    if last != "" and int(last) < a:
        return None                      # invalid per RFC 9110 14.1.1 -> ignore
    if a >= size:
        return "unsat"
    b = size - 1 if last == "" else min(int(last), size - 1)
    return (a, b + 1)


def parse_range_set(value, size, unit_case_sensitive=False, suffix_from_start=False):
    """RFC 9110 14.1.1 to the letter.  Return None (absent, unknown unit or invalid: ignore ->
    200), "unsat" (416) or (parts, clamped): [(start, end_exclusive)] of the satisfiable
    specs in request order, and whether a last-pos past the end was clamped."""
    if value is None:
        return None
    unit, sep, rest = value.partition("=")
    if not sep or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", unit):
        return None
    if (unit != "bytes") if unit_case_sensitive else (unit.lower() != "bytes"):
        return None
    specs = [p.strip(" \t") for p in rest.split(",")]
    specs = [p for p in specs if p]
    if not specs:
        return None
    parts, clamped = [], False
    for spec in specs:
        m = SPEC_RE.match(spec)
        if not m or (m.group(1) == "" and m.group(2) == ""):
            return None
        first, last = m.group(1), m.group(2)
        if first == "":                                  # -n
            n = int(last)
            if n > 0 and size > 0:
                parts.append((0, min(n, size)) if suffix_from_start else (max(0, size - n), size))
            continue
        a = int(first)
        if last != "" and int(last) < a:
            return None                                  # invalid: the whole header is ignored
        if a >= size:
            continue
        if last != "" and int(last) >= size:
            clamped = True
        parts.append((a, size if last == "" else min(int(last), size - 1) + 1))
    return (parts, clamped) if parts else "unsat"


def gzip_full():
    global _GZIP_FULL
    if _GZIP_FULL is None:
        _GZIP_FULL = gzip.compress(RESOURCE, mtime=0)
    return _GZIP_FULL


class Request:
    def __init__(self, raw):
        self.raw = raw                   # exact head bytes incl. terminating blank line
        lines = [l.rstrip(b"\r").decode("latin-1") for l in raw.split(b"\n")]
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            raise ValueError("bad request line")
        self.method, self.target, self.version = parts
        self.headers = []                # [(lower-name, value)] in order
        for line in lines[1:]:
            if not line:
                continue
            name, sep, value = line.partition(":")
            if not sep:
                raise ValueError("bad header line")
            self.headers.append((name.strip().lower(), value.strip()))
        self.path = urlsplit(self.target).path or "/"
        self.query = parse_qs(urlsplit(self.target).query)

    def get(self, name):
        for k, v in self.headers:
            if k == name:
                return v
        return None

    @property
    def wants_close(self):
        tokens = {t.strip().lower() for k, v in self.headers if k == "connection" for t in v.split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" not in tokens
        return "close" in tokens


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.sock = self.request
        self.sock.settimeout(120)
        self.buf = b""
        try:
            while True:
                raw = self.read_head()
                if raw is None:
                    return
                try:
                    req = Request(raw)
                except ValueError:
                    self.simple(None, 400, b"bad request\n", close=True)
                    return
                self.discard_body(req)
                if not self.respond(req):
                    return
        except (BrokenPipeError, ConnectionResetError, socket.timeout, OSError):
            return                       # client went away: stop quietly

    # ---- I/O helpers -------------------------------------------------------
    def read_head(self):
        """Read up to and including the blank line (CRLFCRLF or bare LFLF)."""
        while True:
            self.buf = self.buf.lstrip(b"\r\n")          # tolerate stray CRLFs between requests
            ends = [i + len(t) for t in (b"\r\n\r\n", b"\n\n") if (i := self.buf.find(t)) >= 0]
            if ends:
                end = min(ends)
                raw, self.buf = self.buf[:end], self.buf[end:]
                return raw
            if len(self.buf) > MAX_HEAD:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk

    def discard_body(self, req):
        n = int(req.get("content-length") or 0)
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buf += chunk
        self.buf = self.buf[n:]

    def send_body(self, data, piece=65536, delay=0.0):
        """Write data in pieces; return the number of bytes actually written."""
        written = 0
        try:
            for off in range(0, len(data), piece):
                if off and delay:
                    time.sleep(delay)
                self.sock.sendall(data[off:off + piece])
                written += len(data[off:off + piece])
        except (BrokenPipeError, ConnectionResetError, socket.timeout, OSError):
            self.broken = True
        return written

    @staticmethod
    def head(version, status, headers, eol=b"\r\n"):
        lines = [f"{version} {status} {reason(status)}"] + [f"{k}: {v}" for k, v in headers]
        return eol.join(l.encode("latin-1") for l in lines) + eol + eol

    def log(self, req, status, nbytes):
        method, target = (req.method, req.target) if req else ("?", "?")
        rng = (req.get("range") if req else None) or "-"
        print(f"quirk: {method} {target} range={rng} -> {status} bytes={nbytes}", file=sys.stderr, flush=True)

    def simple(self, req, status, body, ctype="text/plain", close=False, length=True):
        headers = [("Content-Type", ctype)] if body else []
        if length:
            headers.append(("Content-Length", str(len(body))))
        if close:
            headers.append(("Connection", "close"))
        self.sock.sendall(self.head("HTTP/1.1", status, headers))
        self.broken = False
        n = self.send_body(body) if req is None or req.method != "HEAD" else 0
        self.log(req, status, n)
        return not (close or self.broken)

    # ---- routing -------------------------------------------------------------
    def respond(self, req):
        """Send one response; return True to keep the connection open."""
        close = req.wants_close or req.get("transfer-encoding") is not None  # can't resync chunked uploads
        mode = req.path.lstrip("/")
        if mode == "strict" or (mode.startswith("strict/") and mode[7:] in STRICT_DEFECTS):
            return self.strict(req, mode[7:], close)
        if mode in RESOURCE_MODES:
            return self.resource(req, mode, close)
        if mode == "echo":
            return self.simple(req, 200, req.raw, close=close)
        if mode == "huge-header":
            kb = int(req.query.get("kb", ["10240"])[0])
            head = b"HTTP/1.1 200 OK\r\nX-Huge: " + b"a" * (kb * 1024) + b"\r\nContent-Length: 0\r\n\r\n"
            try:
                self.sock.sendall(head)
            except OSError:
                pass  # the client gives up part way: that is the point
            self.log(req, 200, 0)
            return False
        m = re.fullmatch(r"status/(\d{3})", mode)
        if m and 200 <= int(m.group(1)) <= 599:
            st = int(m.group(1))
            return self.simple(req, st, b"", close=close, length=st not in (204, 304))
        return self.simple(req, 404, b"not found\n", close=close)

    def resource(self, req, mode, close):
        rng = parse_range(req.get("range"), len(RESOURCE)) if mode != "ignore-range" else None
        if rng is None:
            status, start, end = 200, 0, len(RESOURCE)
        elif rng == "unsat":
            status, start, end = 416, 0, 0
        else:
            status, (start, end) = 206, rng
        body = RESOURCE[start:end]
        n = LOWER if mode == "lowercase" else SPACED if mode == "space-before-colon" else NAMES
        headers = [(n["ct"], "video/mp4")]
        if mode not in ("no-accept-ranges", "ignore-range"):
            headers.append((n["ar"], "bytes"))
        if status == 206 and mode == "wrong-range":
            headers.append((n["cr"], f"bytes {start + 1}-{end - 1}/{len(RESOURCE)}"))
        elif status == 206 and mode != "no-content-range":
            headers.append((n["cr"], f"bytes {start}-{end - 1}/{len(RESOURCE)}"))
        elif status == 416 and mode != "bad-416":
            headers.append((n["cr"], f"bytes */{len(RESOURCE)}"))
        chunked = mode == "chunked" and status != 416
        headers.append(("Transfer-Encoding", "chunked") if chunked else (n["cl"], str(len(body))))
        if mode == "dup":
            headers += [("X-Dup", "one"), ("x-dup", "two"), ("content-type", "application/octet-stream")]
        if mode == "obs-fold":
            headers.append(FOLDED)
        close = close or mode in ("close", "http10", "drop")
        if close and mode not in ("http10", "drop"):
            headers.append(("Connection", "close"))
        version = "HTTP/1.0" if mode == "http10" else "HTTP/1.1"
        eol = b"\n" if mode == "bare-lf" else b"\r\n"

        if mode == "interim":
            self.sock.sendall(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
        self.sock.sendall(self.head(version, status, headers, eol))
        self.broken = False
        written = 0
        if req.method == "HEAD":
            pass
        elif mode == "drop":
            written = self.send_body(body[:len(body) // 2])
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()            # abrupt: promised bytes never arrive
        elif chunked:
            try:
                for off in range(0, len(body), 10000):
                    piece = body[off:off + 10000]
                    self.sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
                    written += len(piece)
                self.sock.sendall(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError, socket.timeout, OSError):
                self.broken = True
        elif mode == "slow":
            delay_ms = int(req.query.get("delay_ms", ["20"])[0])
            piece = max(1, int(req.query.get("piece", ["4096"])[0]))
            written = self.send_body(body, piece, delay_ms / 1000.0)
        else:
            written = self.send_body(body)
        self.log(req, status, written)
        return not (close or self.broken)


    def strict(self, req, defect, close):
        """/strict and /strict/DEFECT (see the module docstring)."""
        size = len(RESOURCE)
        etag = f'rt-strict-{size}' if defect == "unquoted-etag" else f'"rt-strict-{size}"'
        last_modified = formatdate(RECENT_MTIME, usegmt=True) if defect == "recent-lm" else STRICT_LAST_MODIFIED
        value = req.get("range")
        honour = value is not None and (req.method == "GET" or (req.method == "HEAD" and defect == "head-206"))
        if honour and req.version == "HTTP/1.0" and defect == "http10-no-range":
            honour = False
        cond = req.get("if-range")
        if honour and cond is not None:
            if cond.startswith('"') or cond.startswith("W/"):
                honour = defect == "if-range-etag" or cond == etag
            elif defect == "recent-lm":
                honour = cond == last_modified and time.time() - RECENT_MTIME >= 60   # weak while young
            else:
                honour = defect == "if-range-date" or cond == last_modified
        ranges = parse_range_set(value, size, defect == "unit-case", defect == "suffix-wrong") if honour else None
        status, parts = 200, None
        if ranges == "unsat":
            status = 416
        elif ranges is not None:
            parts, clamped = ranges
            if defect == "clamp-416" and clamped:
                status, parts = 416, None
            elif len(parts) > 1 and defect == "multi-200":
                parts = None
            elif len(parts) > 1 and defect == "multi-coalesce":
                status, parts = 206, [(min(a for a, _ in parts), max(b for _, b in parts))]
            else:
                status = 206

        n = LOWER if defect == "lowercase" else SPACED if defect == "space-before-colon" else NAMES
        headers = [("Date", formatdate(usegmt=True))]
        ctype = "video/mp4"
        gz = defect == "gzip-mismatch" and any(t.split(";")[0].strip().lower() == "gzip"
                                               for t in (req.get("accept-encoding") or "").split(","))
        if status == 200:
            body = gzip_full() if gz else RESOURCE
        elif status == 416:
            body = b""
        elif len(parts) == 1:
            a, b = parts[0]
            body = RESOURCE[a:b]
            if gz:
                body = gzip.compress(body, mtime=0)
        else:
            ctype = f"multipart/byteranges; boundary={STRICT_BOUNDARY}"
            # multi-bad-part: the second part's Content-Range starts one byte after the bytes it carries.
            shift = [1 if defect == "multi-bad-part" and i == 1 else 0 for i in range(len(parts))]
            body = b"".join(
                f"\r\n--{STRICT_BOUNDARY}\r\nContent-Type: video/mp4\r\nContent-Range: bytes {a + d}-{b - 1}/{size}\r\n\r\n".encode()
                + RESOURCE[a:b] for (a, b), d in zip(parts, shift)) + f"\r\n--{STRICT_BOUNDARY}--\r\n".encode()
        headers.append((n["ct"], ctype))
        if defect != "no-accept-ranges":
            headers.append((n["ar"], "bytes"))
        if not (status == 206 and defect == "206-no-etag"):
            headers.append(("ETag", etag))
        headers.append(("Last-Modified", last_modified))
        if status == 206 and len(parts) == 1:
            headers.append((n["cr"], f"bytes {parts[0][0]}-{parts[0][1] - 1}/{size}"))
        elif status == 416 and defect != "416-no-length":
            headers.append((n["cr"], f"bytes */{size}"))
        if gz and status != 416:
            headers += [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
        headers.append((n["cl"], str(len(body))))
        if defect == "dup":
            headers.append(("Content-Type", "application/octet-stream"))
        if defect == "obs-fold":
            headers.append(FOLDED)

        tokens = {t.strip().lower() for k, v in req.headers if k == "connection" for t in v.split(",")}
        if req.version == "HTTP/1.0" and "keep-alive" in tokens and defect not in ("close", "close-silently"):
            headers.append(("Connection", "keep-alive"))
        elif close or defect == "close":
            close = True
            headers.append(("Connection", "close"))
        elif defect == "close-silently" or req.version == "HTTP/1.0":
            close = True                 # HTTP/1.0 without keep-alive closes by definition
        eol = b"\n" if defect == "bare-lf" else b"\r\n"
        self.sock.sendall(self.head("HTTP/1.1", status, headers, eol))
        self.broken = False
        written = self.send_body(body) if req.method != "HEAD" else 0
        self.log(req, status, written)
        return not (close or self.broken)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass                             # per-connection errors are not interesting


class _Stop(Exception):
    pass


def _stop(signum, frame):
    raise _Stop()


def main():
    global RESOURCE
    ap = argparse.ArgumentParser(description="non-conforming HTTP/1.1 origin for tests")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--size", type=int, default=1048576)
    args = ap.parse_args()
    RESOURCE = make_resource(args.size)
    server = Server(("127.0.0.1", args.port), Handler)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except _Stop:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
