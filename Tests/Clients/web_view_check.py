#!/usr/bin/env python3
"""Opens rangetap's live web view in headless Chromium (through the DevTools protocol, cdp.py)
and reports, as one JSON object on stdout, what the page shows:

  web_view_check.py URL --out DIR [--moments 2] [--gap SECONDS] [--rows N] [--timeout SECONDS]
                    [--click] [--wait-cancel]

- waits until at least N rows (default 1) are in the exchange list;
- at each moment (--gap seconds apart): rows in the DOM, exchanges the page holds, the body
  bytes delivered over all of them, the exchanges open, the non-white pixels of the waterfall
  canvas, and a screenshot DIR/moment-K.png;
- with --wait-cancel: waits (up to --timeout) until the page holds a cancelled exchange, then
  reports whether the canvas has the cancel mark's red (#e0001b family) near its end;
- with --click: clicks the first row and reports the detail panel's text;
- always: dialogs the page opened (a hostile capture must open none), the <img> and <script>
  elements in the page, uncaught exceptions, and the page's firstRenderMs.
Exit status 0 when the page came up, 1 otherwise (the JSON says why).
"""
import argparse, json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser

ap = argparse.ArgumentParser()
ap.add_argument('url')
ap.add_argument('--out', required=True)
ap.add_argument('--moments', type=int, default=2)
ap.add_argument('--gap', type=float, default=3.0)
ap.add_argument('--rows', type=int, default=1)
ap.add_argument('--timeout', type=float, default=60)
ap.add_argument('--click', action='store_true')
ap.add_argument('--wait-cancel', action='store_true')
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)

STATE = """(function () {
  var S = window.rangetapLive, delivered = 0, open = 0, cancelled = 0;
  S.exchanges.forEach(function (x) { delivered += x.got || 0; if (x.o === 'open') open++;
    if (x.o === 'cancelled') cancelled++; });
  var cv = document.getElementById('waterfall');
  var d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data, ink = 0, red = 0;
  for (var i = 0; i < d.length; i += 4) {
    if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) ink++;
    if (d[i] > 180 && d[i + 1] < 60 && d[i + 2] < 70) red++;
  }
  return { rows: document.querySelectorAll('#exchanges [data-id]').length, exchanges: S.exchanges.size,
    delivered: delivered, open: open, cancelled: cancelled, ink: ink, red: red,
    status: document.getElementById('status').textContent,
    summary: document.getElementById('summary').textContent };
})()"""

report = {'moments': [], 'ok': False}
b = Browser()
try:
    b.open(a.url)
    b.wait("document.querySelectorAll('#exchanges [data-id]').length >= %d" % a.rows, timeout=a.timeout)
    for k in range(a.moments):
        if k:
            b.pump(a.gap)
        m = b.eval(STATE)
        b.screenshot(os.path.join(a.out, 'moment-%d.png' % (k + 1)))
        m['screenshot'] = os.path.join(a.out, 'moment-%d.png' % (k + 1))
        report['moments'].append(m)
    if a.wait_cancel:
        b.wait("(function () { var n = 0; window.rangetapLive.exchanges.forEach(function (x) {"
               " if (x.o === 'cancelled') n++; }); return n > 0; })()", timeout=a.timeout)
        b.pump(1.0)
        report['afterCancel'] = b.eval(STATE)
        b.screenshot(os.path.join(a.out, 'cancel.png'))
    if a.click:
        b.eval("document.querySelector('#exchanges [data-id]').click()")
        report['detail'] = b.wait("(function () { var t = document.getElementById('detail').textContent;"
                                  " return /HTTP\\/[12]/.test(t) && t; })()", timeout=15)
    report['elements'] = b.eval("({ img: document.querySelectorAll('img').length,"
                                " script: document.querySelectorAll('script').length,"
                                " iframe: document.querySelectorAll('iframe').length })")
    report['firstRenderMs'] = b.eval("window.rangetapLive.firstRenderMs")
    report['dialogs'] = sum(1 for e in b.events if e.get('method') == 'Page.javascriptDialogOpening')
    report['exceptions'] = [e['params']['exceptionDetails'].get('text', '')
                            for e in b.events if e.get('method') == 'Runtime.exceptionThrown']
    report['ok'] = True
except Exception as e:  # the JSON says what went wrong
    report['error'] = '%s: %s' % (type(e).__name__, e)
finally:
    b.close()
print(json.dumps(report))
sys.exit(0 if report['ok'] else 1)
