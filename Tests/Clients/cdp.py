#!/usr/bin/env python3
"""A minimal Chrome DevTools Protocol client over a hand-written RFC 6455 WebSocket (standard
library only): starts headless Chromium (Debian's `chromium`) with a DevTools port of its own,
opens pages, evaluates JavaScript, takes screenshots, and records dialogs a page opens. Used by
Tests/Clients/web_view_check.py and tools/bench-web.sh."""
import base64, json, os, re, select, shutil, socket, struct, subprocess, tempfile, threading, time
from urllib.parse import urlsplit


class WebSocket:
    def __init__(self, url):
        u = urlsplit(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(('GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
                           'Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n'
                           % (u.path, u.hostname, u.port, key)).encode())
        head = b''
        while b'\r\n\r\n' not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise IOError('closed during handshake')
            head += chunk
        if b' 101 ' not in head.split(b'\r\n')[0]:
            raise IOError('handshake refused: %r' % head)
        self.buf = b''

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            hdr = struct.pack('!BB', 0x81, 0x80 | n)
        elif n < 65536:
            hdr = struct.pack('!BBH', 0x81, 0x80 | 126, n)
        else:
            hdr = struct.pack('!BBQ', 0x81, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(hdr + mask + masked)

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise IOError('websocket closed')
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """One text message (fragments joined); answers pings."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack('!H', self._read(2))[0]
            elif n == 127:
                n = struct.unpack('!Q', self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if op == 9:  # ping -> pong
                m = os.urandom(4)
                self.sock.sendall(struct.pack('!BB', 0x8A, 0x80 | len(data)) + m +
                                  bytes(b ^ m[i % 4] for i, b in enumerate(data)))
                continue
            if op == 8:
                raise IOError('websocket close frame')
            parts.append(data)
            if b0 & 0x80:
                return b''.join(parts).decode()

    def pending(self, timeout):
        if self.buf:
            return True
        r, _, _ = select.select([self.sock], [], [], timeout)
        return bool(r)


class Browser:
    def __init__(self, width=1400, height=1000):
        self.dir = tempfile.mkdtemp(prefix='rangetap-cdp-')
        self.proc = subprocess.Popen(
            ['chromium', '--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-port=0',
             '--user-data-dir=' + self.dir, '--window-size=%d,%d' % (width, height), 'about:blank'],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url = None
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.proc.stderr.readline().decode(errors='replace')
            m = re.search(r'DevTools listening on (ws://\S+)', line)
            if m:
                url = m.group(1)
                break
        if not url:
            raise RuntimeError('no DevTools URL from chromium')
        # Keep draining stderr so that chromium never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        self.ws = WebSocket(url)
        self.next = 0
        self.events = []
        self.session = None

    def call(self, method, params=None, session=True, timeout=30):
        self.next += 1
        msg = {'id': self.next, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        self.ws.send(json.dumps(msg))
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = json.loads(self.ws.recv())
            if m.get('id') == self.next:
                if 'error' in m:
                    raise RuntimeError('%s: %s' % (method, m['error']))
                return m.get('result', {})
            self.on_event(m)
        raise TimeoutError(method)

    def on_event(self, m):
        self.events.append(m)
        if m.get('method') == 'Page.javascriptDialogOpening':
            # Record, then dismiss so the page does not block.
            self.next += 1
            self.ws.send(json.dumps({'id': self.next, 'method': 'Page.handleJavaScriptDialog',
                                     'params': {'accept': False}, 'sessionId': m.get('sessionId')}))

    def pump(self, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.ws.pending(max(0, deadline - time.time())):
                self.on_event(json.loads(self.ws.recv()))

    def open(self, url):
        t = self.call('Target.createTarget', {'url': 'about:blank'}, session=False)
        s = self.call('Target.attachToTarget', {'targetId': t['targetId'], 'flatten': True}, session=False)
        self.session = s['sessionId']
        self.call('Page.enable')
        self.call('Runtime.enable')
        self.call('Emulation.setDeviceMetricsOverride',
                  {'width': 1400, 'height': 1000, 'deviceScaleFactor': 1, 'mobile': False})
        self.call('Page.navigate', {'url': url})

    def eval(self, expr, await_promise=False):
        r = self.call('Runtime.evaluate', {'expression': expr, 'returnByValue': True,
                                           'awaitPromise': await_promise})
        if 'exceptionDetails' in r:
            raise RuntimeError('JS: %s' % json.dumps(r['exceptionDetails'])[:800])
        return r['result'].get('value')

    def wait(self, expr, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                v = self.eval(expr)
            except RuntimeError:  # the page is not there yet
                v = None
            if v:
                return v
            self.pump(0.1)
        raise TimeoutError(expr)

    def screenshot(self, path):
        r = self.call('Page.captureScreenshot', {'format': 'png'})
        open(path, 'wb').write(base64.b64decode(r['data']))

    def close(self):
        try:
            self.call('Browser.close', session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # our own child, by its handle
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
