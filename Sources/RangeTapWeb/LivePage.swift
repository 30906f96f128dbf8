/// The live web view's page (docs/web.md): hand-written HTML, CSS and JavaScript, no network.
enum LivePage {
    /// The page; it reads the token from its own URL (`?token=`).
    static let html = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <meta http-equiv="Content-Security-Policy"
          content="default-src 'none'; connect-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline';
          img-src 'none'; base-uri 'none'; form-action 'none'">
        <title>rangetap live</title>
        <style>
        :root { color-scheme: light; }
        * { box-sizing: border-box; }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans",
          sans-serif; margin: 0; padding: 8px 18px 30px; color: #1d2330; background: #fbfbfd; }
        code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace;
          font-size: 12px; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 14px; }
        h1 { font-size: 20px; margin: 2px 0; } h3 { font-size: 13px; margin: 10px 0 2px; }
        h2 { font-size: 15px; margin: 14px 0 6px; border-bottom: 1px solid #dde; padding-bottom: 3px; }
        h2 .count { color: #777; font-weight: 400; }
        #status { font-size: 12px; padding: 1px 9px; border-radius: 10px; background: #eee; color: #555; }
        #status.live { background: #e3f4e1; color: #1b5e20; } #status.wait { background: #fff0d0; color: #7a4a00; }
        #status.down { background: #fde0e0; color: #8b0000; } #capture { color: #555; word-break: break-all; }
        #summary { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
        .card { background: #fff; border: 1px solid #dde; border-radius: 6px; padding: 3px 10px; min-width: 88px; }
        .card .v { font-size: 18px; font-weight: 600; font-variant-numeric: tabular-nums; }
        .card .l { color: #555; font-size: 12px; }
        .card.alert { border-color: #d62728; } .card.alert .v { color: #b71c1c; }
        .tools, .legend { display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: center; margin: 4px 0; }
        .legend { color: #333; font-size: 12px; } .hint { color: #777; font-size: 12px; }
        i.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
        .key { white-space: nowrap; } .key.res { font-family: ui-monospace, monospace; max-width: 340px;
          overflow: hidden; text-overflow: ellipsis; }
        .g-cancel { color: #e0001b; font-weight: 700; } .g-error { color: #111; } .g-fault { color: #7b1fa2; }
        .g-seek { color: #1565c0; } .g-pause { color: #1d2330; letter-spacing: -1px; }
        button.on { background: #e3f4e1; }
        #waterfall { display: block; width: 100%; height: 380px; background: #fff; border: 1px solid #e3e3ea;
          border-radius: 4px; cursor: crosshair; touch-action: none; }
        .split { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
        .split > section { flex: 3 1 640px; min-width: 0; } .filters input { width: 120px; margin-right: 8px; }
        #detail { flex: 2 1 420px; min-width: 0; max-height: 86vh; overflow: auto; background: #fff;
          border: 1px solid #dde; border-radius: 6px; padding: 4px 12px 10px; margin-top: 14px; }
        #exchanges { position: relative; height: 440px; overflow: auto; border: 1px solid #e1e3ea; background: #fff;
          font-size: 12.5px; }
        .thead, .row { display: grid; min-width: 1400px; --cols: 52px 140px minmax(170px, 2fr) 200px 56px 260px 150px
          minmax(110px, 1fr) 96px minmax(110px, 1fr); grid-template-columns: var(--cols); }
        .thead { position: sticky; top: 0; z-index: 2; height: 24px; background: #f0f1f6; font-weight: 600; }
        .tbody { position: relative; } ul.fl { list-style: none; padding: 0; margin: 0; }
        .row { position: absolute; left: 0; right: 0; height: 22px; cursor: pointer; border-bottom: 1px solid #f0f1f4; }
        .thead span, .row span { padding: 2px 5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .row span:nth-child(1), .row span:nth-child(5), .row span:nth-child(7) { text-align: right;
          font-variant-numeric: tabular-nums; }
        .row span:nth-child(3), .row span:nth-child(4), .row span:nth-child(6) { font-family: ui-monospace, monospace;
          font-size: 12px; }
        .row:hover { background: #f4f6ff; } .row.sel { background: #fff6bf; }
        .row.o-cancelled .oc { color: #c00018; } .row.o-error .oc { color: #fff; background: #b71c1c; }
        .row.o-open .oc { color: #8a6d00; } .row .bad { color: #b71c1c; font-weight: 600; } .row .fx { color: #7a4a00; }
        pre { background: #f3f4f8; padding: 4px 8px; margin: 4px 0 0; white-space: pre-wrap; word-break: break-all; }
        pre .ln { display: block; } pre .ln.flag { background: #fff0d0; }
        pre .note { color: #8a4b00; font-family: system-ui, sans-serif; font-size: 11px; }
        table.grid { border-collapse: collapse; font-size: 12px; }
        table.grid th, table.grid td { border: 1px solid #e1e3ea; padding: 2px 6px; text-align: left;
          vertical-align: top; }
        table.grid th { background: #f0f1f6; font-weight: 600; } table.grid td.n { text-align: right; }
        table.facts td:first-child { color: #555; white-space: nowrap; } table.facts td { word-break: break-all; }
        canvas.chunks { display: block; width: 100%; height: 130px; border: 1px solid #e3e3ea; margin: 4px 0; }
        .sev { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 12px; font-weight: 600;
          color: #fff; margin-right: 6px; }
        .sev.sev-error { background: #c62828; } .sev.sev-warn { background: #d98200; }
        .sev.sev-info { background: #5b7083; }
        li.finding { margin: 4px 0; padding: 3px 8px; border-left: 3px solid #ccd; background: #fff;
          word-break: break-word; }
        li.finding.sev-error { border-color: #c62828; } li.finding.sev-warn { border-color: #d98200; }
        li.finding.click { cursor: pointer; } li.finding.click:hover { background: #f4f6ff; }
        li.finding .exl { color: #1565c0; margin-right: 6px; } code.code { font-weight: 600; margin-right: 6px; }
        #tip { position: fixed; z-index: 10; background: #fff; border: 1px solid #99a; border-radius: 4px;
          padding: 4px 8px; font-size: 12px; box-shadow: 0 2px 8px rgba(0,0,0,.15); pointer-events: none;
          max-width: 560px; word-break: break-all; }
        </style>
        </head>
        <body>
        <header>
          <h1>rangetap live</h1>
          <span id="status">connecting…</span>
          <span id="capture" class="mono"></span>
        </header>
        <div id="summary"></div>
        <section>
          <div class="tools">
            <button id="follow" class="on" title="follow the newest exchange">Follow</button>
            <label><input type="checkbox" id="media-time"> media time</label>
            <label>colour by <select id="colour-by"><option value="outcome">outcome</option>
              <option value="resource">resource</option></select></label>
            <span class="hint">wheel: zoom time · shift+wheel: zoom offsets · drag: pan · double-click: follow</span>
          </div>
          <div id="legend" class="legend"></div>
          <canvas id="waterfall"></canvas>
        </section>
        <div class="split">
          <section>
            <h2>Exchanges <span id="count" class="count"></span></h2>
            <div class="filters">
              host <input id="f-host" placeholder="substring"> path <input id="f-path" placeholder="substring">
              status <input id="f-status" placeholder="206, 4xx"> finding <input id="f-finding" placeholder="code">
            </div>
            <div id="exchanges"></div>
          </section>
          <aside id="detail">
            <p class="hint">Click an exchange (a row, a bar or a finding) to see its detail.</p>
          </aside>
        </div>
        <section>
          <h2>Findings <span id="findings-count" class="count"></span></h2>
          <ul id="findings" class="fl"></ul>
        </section>
        <div id="tip" hidden></div>
        <script>
        (function () {
          'use strict';
          var token = new URLSearchParams(location.search).get('token') || '';
          var qs = '?token=' + encodeURIComponent(token);
          // The report's palette (HTMLReport), and its marks' colours.
          var PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#17becf', '#9c755f', '#c9a227', '#ff6fa0',
            '#3d3d9e', '#7f7f7f'];
          var OUTCOME = { complete: '#4e79a7', open: '#f28e2b', cancelled: '#e0001b', error: '#111111',
            refused: '#9e9e9e' };
          var S = window.rangetapLive = {
            exchanges: new Map(), order: [], findings: [], summary: null, capture: null, selected: null,
            resources: new Map(), yMax: 1, mediaMax: 0, maxT: 0, dataNow: 0, recvAt: 0, connected: false,
            firstRenderMs: null, drawMs: null, drawnAt: 0, view: null
          };
          var openAt = null, firstPending = false;

          function $(id) { return document.getElementById(id); }

          // Everything from the server is hostile: it only ever reaches the page through textContent, after
          // visible() has made control characters (and bidi overrides, which could disguise a line) readable.
          function visible(s) {
            var hidden = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;
            return String(s).replace(hidden, function (c) {
              if (c === '\r') return '\\r';
              if (c === '\n') return '\\n';
              if (c === '\t') return '\\t';
              var n = c.charCodeAt(0);
              return n < 0x100 ? '\\x' + (n < 16 ? '0' : '') + n.toString(16).toUpperCase()
                : '\\u' + n.toString(16).toUpperCase();
            });
          }
          function el(tag, cls, text) {
            var e = document.createElement(tag);
            if (cls) e.className = cls;
            if (text != null) e.textContent = visible(text);
            return e;
          }
          function sevClass(s) { return s === 'error' || s === 'warn' ? s : 'info'; }
          function fmtBytes(n) {
            if (n == null || !isFinite(n)) return '–';
            var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0, v = Number(n);
            while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
            return v.toFixed(i === 0 ? 0 : (Math.abs(v) < 10 ? 2 : 1)) + ' ' + u[i];
          }
          function fmtT(t) { return t == null ? '–' : Number(t).toFixed(3) + ' s'; }
          function fmtDur(s) {
            if (s == null || !isFinite(s)) return '–';
            return s < 60 ? s.toFixed(1) + ' s' : Math.floor(s / 60) + ' min ' + Math.floor(s % 60) + ' s';
          }
          function arr(a) { return Array.isArray(a) ? a : []; }
          function rangeStart(rq) { var m = /bytes=(\d+)-/.exec(String(rq || '')); return m ? Number(m[1]) : 0; }

          // ---- State -------------------------------------------------------------------------------------------

          // Derived fields (prefixed _) are computed once per exchange version, not per frame.
          function prep(x) {
            x.pts = arr(x.pts); x.fx = arr(x.fx); x.fault = arr(x.fault); x.pause = arr(x.pause);
            var pts = x.pts, last = pts.length ? pts[pts.length - 1] : null, lastB = last ? last[1] : 0;
            x._base = typeof x.off === 'number' ? x.off : rangeStart(x.rq);
            x._lastB = lastB;
            x._total = x.exp > 0 ? x.exp : Math.max(lastB, x.got || 0, 1);
            x._top = x._base + Math.max(lastB, x.exp || 0);
            var t = Math.max(x.t0 || 0, x.tf || 0, x.t1 || 0, last ? last[0] : 0);
            x.pause.forEach(function (p) { t = Math.max(t, p[0] || 0, p[1] || 0); });
            x._lastT = t;
            // The media span, when the server could place the exchange in media time (from and to may be null).
            var m = x.media;
            x._span = m && typeof m.from === 'number' && typeof m.to === 'number' && m.to >= m.from ? m : null;
            x._lh = String(x.h == null ? '' : x.h).toLowerCase();
            x._lp = String(x.p == null ? '' : x.p).toLowerCase();
            var p = String(x.p == null ? '' : x.p), q = p.indexOf('?');
            var key = String(x.h == null ? '' : x.h) + (q < 0 ? p : p.slice(0, q)); // a resource: host + path
            if (!S.resources.has(key)) { S.resources.set(key, S.resources.size); invalidate('legend'); }
            x._res = S.resources.get(key);
            return x;
          }
          function ingest(list) {
            var unsorted = false;
            for (var i = 0; i < list.length; i++) {
              var x = prep(list[i]);
              if (!S.exchanges.has(x.id)) {
                if (S.order.length && x.id < S.order[S.order.length - 1]) unsorted = true;
                S.order.push(x.id);
              }
              S.exchanges.set(x.id, x);
              if (x._top > S.yMax) S.yMax = x._top;
              if (x._span && x._span.to > S.mediaMax) S.mediaMax = x._span.to;
              if (x._lastT > S.maxT) S.maxT = x._lastT;
            }
            if (unsorted) S.order.sort(function (a, b) { return a - b; });
          }
          // The server's clock is only known at each event; between events a live capture's time runs on locally,
          // so a stalled request keeps stretching.
          function now() {
            var n = S.dataNow;
            if (S.connected && S.capture && S.capture.live) n += (performance.now() - S.recvAt) / 1000;
            return n;
          }
          function onReset(d) {
            S.exchanges = new Map(); S.order = []; S.resources = new Map(); S.yMax = 1; S.mediaMax = 0; S.maxT = 0;
            S.capture = d.capture || null;
            ingest(arr(d.exchanges).slice().sort(function (a, b) { return a.id - b.id; }));
            S.findings = arr(d.findings); S.summary = d.summary || null;
            S.dataNow = Math.max(S.maxT, (S.summary && S.summary.duration) || 0);
            S.recvAt = performance.now();
            renderCapture();
            invalidate('summary', 'legend', 'filter', 'findings', 'wf');
            if (S.selected != null) loadDetail(S.selected);
            if (openAt != null && S.firstRenderMs == null) firstPending = true;
          }
          function onUpdate(d) {
            var n = now(), list = arr(d.exchanges);
            ingest(list);
            if (d.findings) S.findings = arr(d.findings);
            if (d.summary) S.summary = d.summary;
            if (d.capture) { S.capture = d.capture; renderCapture(); }
            S.dataNow = Math.max(n, S.maxT, (S.summary && S.summary.duration) || 0);
            S.recvAt = performance.now();
            for (var i = 0; i < list.length; i++) if (list[i].id === S.selected) { refreshDetailSoon(); break; }
            invalidate('summary', 'filter', 'findings', 'wf');
          }

          // ---- Rendering happens in one animation frame, and only for what changed ---------------------------------

          var dirty = {}, queued = false;
          function invalidate() {
            for (var i = 0; i < arguments.length; i++) dirty[arguments[i]] = true;
            if (!queued) { queued = true; requestAnimationFrame(frame); }
          }
          function frame() {
            queued = false;
            var d = dirty;
            dirty = {};
            if (d.summary) renderSummary();
            if (d.legend) renderLegend();
            if (d.filter) refilter();
            if (d.filter || d.list) renderRows();
            if (d.findings) renderFindings();
            // Hovering redraws the waterfall only when the bar under the pointer changes.
            if ((d.hover && hoverPick()) || d.wf) drawWaterfall();
            if (firstPending) {
              firstPending = false;
              // A task queued from the frame runs after the frame has been painted.
              setTimeout(function () { S.firstRenderMs = performance.now() - openAt; }, 0);
            }
          }

          function setStatus(kind, text) { var s = $('status'); s.className = kind; s.textContent = text; }
          function renderCapture() {
            var c = S.capture;
            $('capture').textContent = c ? visible(String(c.path) + ' · ' + String(c.tool) +
              (c.live ? ' · recording' : ' · finished')) : '';
          }

          var CARDS = ['requests', 'open', 'bytes', 'unique', 'redundancy', 'cancels', 'seeks', 'errors', 'duration'];
          var cards = {};
          CARDS.forEach(function (k) {
            var c = el('div', 'card');
            cards[k] = c.appendChild(el('div', 'v', '–'));
            c.appendChild(el('div', 'l', k));
            $('summary').appendChild(c);
          });
          function renderSummary() {
            var s = S.summary || {};
            CARDS.forEach(function (k) {
              var v = s[k], t;
              if (k === 'bytes' || k === 'unique') t = fmtBytes(v);
              else if (k === 'redundancy') t = v == null ? '–' : '×' + Number(v).toFixed(2);
              else if (k === 'duration') t = fmtDur(v);
              else t = v == null ? '–' : String(v);
              cards[k].textContent = visible(t);
              cards[k].parentNode.classList.toggle('alert', (k === 'errors' || k === 'cancels') && v > 0);
            });
          }

          // ---- Waterfall -----------------------------------------------------------------------------------------

          var cv = $('waterfall'), ctx = cv.getContext('2d');
          var P = { l: 74, r: 14, t: 10, b: 34 };
          var view = S.view = { follow: true, yAuto: true, media: false, by: 'outcome', x0: 0, x1: 1, y0: 0, y1: 1 };
          var M = null, drawn = [], hover = null, hoverAt = null;

          function colourOf(x) {
            return view.by === 'resource' ? PALETTE[x._res % PALETTE.length] : OUTCOME[x.o] || '#555';
          }
          // y of `bytes` into the body: the offset in the resource, or the media time when the span is known.
          function val(x, bytes) {
            if (!view.media) return x._base + bytes;
            var m = x._span;
            return m.from + (m.to - m.from) * Math.min(1, bytes / x._total);
          }
          function endT(x, n) { return x.t1 != null ? x.t1 : Math.max(n, x._lastT); }
          function firstT(x, n) { return x.pts.length ? x.pts[0][0] : x.tf != null ? x.tf : endT(x, n); }
          function lastT(x) { return x.pts.length ? x.pts[x.pts.length - 1][0] : x.t0; }
          function bytesAt(x, t) {
            var b = 0;
            for (var i = 0; i < x.pts.length && x.pts[i][0] <= t; i++) b = x.pts[i][1];
            return b;
          }
          function ticks(lo, hi, count) {
            var span = hi - lo;
            if (!(span > 0)) return { step: 1, values: [] };
            var step = Math.pow(10, Math.floor(Math.log10(span / count))), r = span / count / step;
            step *= r >= 7.5 ? 10 : r >= 3.5 ? 5 : r >= 1.5 ? 2 : 1;
            var out = [];
            for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
            return { step: step, values: out };
          }
          function decimals(step) { return Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9))); }

          function drawAxes(w, h, pw, ph) {
            var xt = ticks(view.x0, view.x1, Math.max(2, Math.floor(pw / 90))), xd = decimals(xt.step);
            var unit = 1, uname = 's', U = [[1073741824, 'GiB'], [1048576, 'MiB'], [1024, 'KiB'], [1, 'B']], i = 0;
            if (!view.media) {
              while (i < U.length - 1 && view.y1 < 2 * U[i][0]) i++;
              unit = U[i][0]; uname = U[i][1];
            }
            var yt = ticks(view.y0 / unit, view.y1 / unit, Math.max(2, Math.floor(ph / 45))), yd = decimals(yt.step);
            var xs = xt.values.map(function (t) { return Math.round(M.X(t)) + 0.5; });
            var ys = yt.values.map(function (v) { return Math.round(M.Y(v * unit)) + 0.5; });
            ctx.font = '11px system-ui, sans-serif'; ctx.lineWidth = 1; ctx.strokeStyle = '#eceef3'; ctx.beginPath();
            xs.forEach(function (x) { ctx.moveTo(x, P.t); ctx.lineTo(x, P.t + ph); });
            ys.forEach(function (y) { ctx.moveTo(P.l, y); ctx.lineTo(P.l + pw, y); });
            ctx.stroke();
            ctx.strokeStyle = '#555'; ctx.fillStyle = '#333'; ctx.beginPath();
            ctx.moveTo(P.l + 0.5, P.t); ctx.lineTo(P.l + 0.5, P.t + ph + 0.5); ctx.lineTo(P.l + pw, P.t + ph + 0.5);
            ctx.textAlign = 'center'; ctx.textBaseline = 'top';
            xs.forEach(function (x, i) {
              ctx.moveTo(x, P.t + ph); ctx.lineTo(x, P.t + ph + 5);
              ctx.fillText(xt.values[i].toFixed(xd), x, P.t + ph + 7);
            });
            ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
            ys.forEach(function (y, i) {
              ctx.moveTo(P.l - 5, y); ctx.lineTo(P.l, y);
              ctx.fillText(yt.values[i].toFixed(yd), P.l - 8, y);
            });
            ctx.stroke();
            ctx.fillStyle = '#555'; ctx.textAlign = 'center'; ctx.textBaseline = 'bottom';
            ctx.fillText('time since capture start (s)', P.l + pw / 2, h - 1);
            ctx.save(); ctx.translate(12, P.t + ph / 2); ctx.rotate(-Math.PI / 2); ctx.textBaseline = 'middle';
            ctx.fillText(view.media ? 'media time (s)' : 'offset in resource (' + uname + ')', 0, 0);
            ctx.restore();
          }

          // The three parts of a bar, traced into the current path: waiting for the first byte, body arrival, and the
          // tail from the last byte to the end (or to now while open: a stall keeps stretching it).
          // Lines shorter than a pixel are left out: zoomed out on 10,000 exchanges, most waits and tails are.
          function traceWait(x, n) {
            var y = M.Y(val(x, 0)), a = M.X(x.t0), b = M.X(firstT(x, n));
            if (b - a >= 1) { ctx.moveTo(a, y); ctx.lineTo(b, y); }
          }
          function traceBody(x) {
            var p = x.pts, n = p.length;
            if (!n) return;
            // The hot loop, with val() and the axes' mapping folded into one linear map per exchange.
            var media = view.media, s = media ? (x._span.to - x._span.from) / x._total : 1;
            var o = media ? x._span.from : x._base, cap = media ? x._total : Infinity;
            var ax = M.ax, kx = M.kx, by = M.by - o * M.ky, ky = s * M.ky;
            var lx = ax + p[0][0] * kx, ly = by;
            ctx.moveTo(lx, ly);
            for (var i = 0; i < n; i++) {
              var px = ax + p[i][0] * kx, py = by - Math.min(p[i][1], cap) * ky;
              if (i < n - 1 && Math.abs(px - lx) < 1 && Math.abs(py - ly) < 1) continue; // within a pixel of the last
              ctx.lineTo(px, py);
              lx = px; ly = py;
            }
          }
          function traceTail(x, n) {
            if (!x.pts.length) return;
            var y = M.Y(val(x, x._lastB)), a = M.X(lastT(x)), b = M.X(endT(x, n));
            if (b - a >= 1) { ctx.moveTo(a, y); ctx.lineTo(b, y); }
          }
          function endPoint(x, n) {
            var t = x.t1 != null ? x.t1 : x.pts.length ? lastT(x) : endT(x, n);
            return [M.X(t), M.Y(val(x, x._lastB))];
          }
          function strokePass(list, n, width, dash, alpha, trace) {
            ctx.lineWidth = width; ctx.setLineDash(dash); ctx.globalAlpha = alpha;
            ctx.beginPath();
            for (var i = 0; i < list.length; i++) trace(list[i], n);
            ctx.stroke();
          }
          function drawMarks(list, n) {
            var cancel = new Path2D(), err = new Path2D(), fault = new Path2D(), seek = new Path2D();
            var open = new Path2D();
            for (var i = 0; i < list.length; i++) {
              var x = list[i], e = endPoint(x, n), px = e[0], py = e[1];
              if (x.o === 'cancelled') {
                cancel.moveTo(px - 5, py - 5); cancel.lineTo(px + 5, py + 5);
                cancel.moveTo(px - 5, py + 5); cancel.lineTo(px + 5, py - 5);
              } else if (x.o === 'error') {
                err.moveTo(px, py - 10); err.lineTo(px + 9, py + 6); err.lineTo(px - 9, py + 6); err.closePath();
              } else if (x.o === 'open' && x.pts.length) {
                open.moveTo(px + 3.5, py); open.arc(px, py, 3.5, 0, 2 * Math.PI);
              }
              if (x.fault.length) {
                // The protocol gives no time for a fault: it is marked where the body stood last.
                var f = x.pts.length ? [M.X(lastT(x)), py] : [M.X(x.t0), M.Y(val(x, 0))];
                fault.moveTo(f[0], f[1] - 7); fault.lineTo(f[0] + 6, f[1]); fault.lineTo(f[0], f[1] + 7);
                fault.lineTo(f[0] - 6, f[1]); fault.closePath();
              }
              if (x.seek) {
                var sx = M.X(x.t0), sy = M.Y(val(x, 0));
                seek.moveTo(sx - 11, sy - 6); seek.lineTo(sx - 2, sy); seek.lineTo(sx - 11, sy + 6); seek.closePath();
              }
            }
            ctx.setLineDash([]); ctx.globalAlpha = 1;
            ctx.fillStyle = '#1565c0'; ctx.fill(seek);
            ctx.fillStyle = '#f28e2b'; ctx.strokeStyle = '#fff'; ctx.lineWidth = 1; ctx.fill(open); ctx.stroke(open);
            ctx.fillStyle = '#7b1fa2'; ctx.fill(fault); ctx.stroke(fault);
            ctx.fillStyle = '#111'; ctx.fill(err); ctx.stroke(err);
            ctx.strokeStyle = '#e0001b'; ctx.lineWidth = 3; ctx.lineCap = 'round';
            ctx.stroke(cancel); ctx.lineCap = 'butt';
          }
          function drawPauses(list, n) {
            ctx.strokeStyle = '#1d2330'; ctx.lineWidth = 2; ctx.setLineDash([5, 3]); ctx.globalAlpha = 1;
            ctx.beginPath();
            for (var i = 0; i < list.length; i++) {
              var x = list[i];
              for (var j = 0; j < x.pause.length; j++) {
                var a = x.pause[j][0], b = x.pause[j][1] != null ? x.pause[j][1] : n, y = M.Y(val(x, bytesAt(x, a)));
                ctx.moveTo(M.X(a), y); ctx.lineTo(M.X(b), y);
              }
            }
            ctx.stroke();
          }
          function highlight(x, n, halo) {
            ctx.strokeStyle = halo;
            strokePass([x], n, 7, [], 0.8, function (e) { traceWait(e, n); traceBody(e); traceTail(e, n); });
            ctx.strokeStyle = colourOf(x);
            strokePass([x], n, 2.6, [], 1, function (e) { traceWait(e, n); traceBody(e); traceTail(e, n); });
          }

          function drawWaterfall() {
            var started = performance.now(), dpr = window.devicePixelRatio || 1;
            var w = cv.clientWidth, h = cv.clientHeight;
            if (!w || !h) return;
            if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) {
              cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
            }
            ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
            ctx.fillStyle = '#fff';
            ctx.fillRect(0, 0, w, h);
            var n = now(), pw = w - P.l - P.r, ph = h - P.t - P.b;
            if (view.follow) { view.x0 = 0; view.x1 = Math.max(1, n * 1.02 + 0.05); }
            if (view.yAuto) { view.y0 = 0; view.y1 = Math.max(view.media ? S.mediaMax : S.yMax, 1) * 1.04; }
            var kx = pw / (view.x1 - view.x0), ky = ph / (view.y1 - view.y0), x0 = view.x0, y0 = view.y0;
            var ax = P.l - x0 * kx, by = P.t + ph + y0 * ky;
            M = { n: n, kx: kx, ky: ky, pw: pw, ph: ph, ax: ax, by: by,
              X: function (t) { return ax + t * kx; }, Y: function (v) { return by - v * ky; } };
            drawAxes(w, h, pw, ph);
            ctx.save();
            ctx.beginPath(); ctx.rect(P.l + 1, P.t, pw, ph); ctx.clip();
            // One path per colour and kind of line: 10,000 bars cost a few dozen stroke() calls.
            var groups = new Map();
            drawn = [];
            for (var i = 0; i < S.order.length; i++) {
              var x = S.exchanges.get(S.order[i]);
              if (view.media && !x._span) continue;
              if (x.t0 > view.x1 || endT(x, n) < view.x0) continue;
              drawn.push(x);
              var c = colourOf(x), g = groups.get(c);
              if (!g) groups.set(c, g = []);
              g.push(x);
            }
            groups.forEach(function (list, c) {
              ctx.strokeStyle = c;
              strokePass(list, n, 4, [], 0.22, function (x) { // the range asked, at the request time
                if (!(x.exp > 0)) return;
                var px = M.X(x.t0);
                ctx.moveTo(px, M.Y(val(x, 0))); ctx.lineTo(px, M.Y(val(x, x.exp)));
              });
              strokePass(list, n, 1.4, [3, 3], 0.75, traceWait);
              strokePass(list, n, 2.2, [], 1, traceBody);
              strokePass(list, n, 1.4, [1, 3], 0.9, traceTail);
              strokePass(list, n, 2, [], 1, function (x) { // no body (yet): a ring at the request, as in the report
                if (x.pts.length) return;
                var px = M.X(x.t0), py = M.Y(val(x, 0));
                ctx.moveTo(px + 3.5, py); ctx.arc(px, py, 3.5, 0, 2 * Math.PI);
              });
            });
            drawPauses(drawn, n);
            drawMarks(drawn, n);
            var sel = S.exchanges.get(S.selected);
            if (hover && hover !== sel && drawn.indexOf(hover) >= 0) highlight(hover, n, 'rgba(120,140,200,.45)');
            if (sel && drawn.indexOf(sel) >= 0) highlight(sel, n, 'rgba(255,212,0,.9)');
            ctx.restore();
            ctx.globalAlpha = 1; ctx.setLineDash([]);
            if (!drawn.length) {
              ctx.fillStyle = '#777'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
              var empty = view.media && S.order.length ? 'no exchange mapped to media time here'
                : 'no exchanges here yet';
              ctx.fillText(empty, P.l + pw / 2, P.t + ph / 2);
            }
            $('follow').classList.toggle('on', view.follow && view.yAuto);
            S.drawnAt = performance.now();
            S.drawMs = S.drawnAt - started;
          }

          // Hit testing: the bar nearest the pointer within 7 px, boxes first to skip most bars cheaply.
          function segDist(px, py, ax, ay, bx, by) {
            var dx = bx - ax, dy = by - ay, l = dx * dx + dy * dy;
            var t = l ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / l)) : 0;
            var qx = ax + t * dx - px, qy = ay + t * dy - py;
            return Math.sqrt(qx * qx + qy * qy);
          }
          function pick(mx, my) {
            if (!M) return null;
            var n = M.n, best = null, bd = 7;
            for (var i = drawn.length - 1; i >= 0; i--) {
              var x = drawn[i], yb = M.Y(val(x, 0)), yt = M.Y(val(x, x._lastB));
              if (mx < M.X(x.t0) - bd || mx > M.X(endT(x, n)) + bd || my > yb + bd || my < yt - bd) continue;
              var pts = [[M.X(x.t0), yb], [M.X(firstT(x, n)), yb]];
              x.pts.forEach(function (p) { pts.push([M.X(p[0]), M.Y(val(x, p[1]))]); });
              if (x.pts.length) pts.push([M.X(endT(x, n)), yt]);
              for (var j = 1; j < pts.length; j++) {
                var d = segDist(mx, my, pts[j - 1][0], pts[j - 1][1], pts[j][0], pts[j][1]);
                if (d < bd) { bd = d; best = x; }
              }
            }
            return best;
          }
          function hoverPick() {
            var tip = $('tip'), x = hoverAt ? pick(hoverAt[0], hoverAt[1]) : null, changed = x !== hover;
            hover = x;
            if (!x) { tip.hidden = true; return changed; }
            tip.textContent = '';
            var lines = [['#' + x.id + ' ', x.o + (x.seek ? ' · seek' : '') + (x.fault.length ? ' · fault' : '')],
              ['', String(x.h) + String(x.p)], ['range ', x.rq == null ? 'none' : x.rq],
              ['status ', (x.st == null ? '…' : x.st) + (x.cr ? ' · ' + x.cr : '')],
              ['delivered ', x.got + ' / ' + (x.exp == null ? '?' : x.exp) + ' B'],
              ['time ', fmtT(x.t0) + ' → ' + (x.t1 == null ? 'open' : fmtT(x.t1))]];
            if (x.media) lines.push(['media ', x.media.label]);
            if (x.fault.length) lines.push(['fault ', x.fault.join(', ')]);
            if (x.fx.length) lines.push(['findings ', x.fx.join(' ')]);
            lines.forEach(function (l) {
              var d = tip.appendChild(el('div'));
              d.appendChild(el('b', null, l[0]));
              d.appendChild(document.createTextNode(visible(l[1])));
            });
            tip.style.left = Math.min(hoverAt[2] + 14, window.innerWidth - 360) + 'px';
            tip.style.top = (hoverAt[3] + 14) + 'px';
            tip.hidden = false;
            return changed;
          }

          var drag = null;
          function local(e) { var r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
          cv.addEventListener('wheel', function (e) {
            if (!M) return;
            e.preventDefault();
            var p = local(e), f = Math.exp((e.deltaY || e.deltaX) * 0.0015);
            if (e.shiftKey) {
              var v = view.y0 + (P.t + M.ph - p[1]) / M.ky;
              view.y0 = Math.max(0, v - (v - view.y0) * f); view.y1 = v + (view.y1 - v) * f; view.yAuto = false;
            } else {
              var t = view.x0 + (p[0] - P.l) / M.kx;
              view.x0 = t - (t - view.x0) * f; view.x1 = Math.max(view.x0 + 0.001, t + (view.x1 - t) * f);
              view.follow = false;
            }
            invalidate('wf');
          }, { passive: false });
          cv.addEventListener('mousedown', function (e) {
            drag = { x: e.clientX, y: e.clientY, v: [view.x0, view.x1, view.y0, view.y1], moved: false };
            e.preventDefault();
          });
          window.addEventListener('mousemove', function (e) {
            if (drag) {
              var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
              if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
              if (!drag.moved || !M) return;
              view.x0 = drag.v[0] - dx / M.kx; view.x1 = drag.v[1] - dx / M.kx; view.follow = false;
              if (!view.yAuto) { view.y0 = drag.v[2] + dy / M.ky; view.y1 = drag.v[3] + dy / M.ky; }
              invalidate('wf');
            } else if (e.target === cv) {
              var p = local(e);
              hoverAt = [p[0], p[1], e.clientX, e.clientY]; invalidate('hover');
            } else if (hoverAt) {
              hoverAt = null; invalidate('hover');
            }
          });
          window.addEventListener('mouseup', function (e) {
            var d = drag;
            drag = null;
            if (!d || d.moved || e.target !== cv) return;
            var p = local(e), x = pick(p[0], p[1]);
            if (x) select(x.id, false);
          });
          cv.addEventListener('mouseleave', function () { hoverAt = null; invalidate('hover'); });
          function follow() { view.follow = true; view.yAuto = true; invalidate('wf'); }
          cv.addEventListener('dblclick', follow);
          $('follow').addEventListener('click', follow);
          $('media-time').addEventListener('change', function (e) { view.media = e.target.checked; view.yAuto = true;
            invalidate('wf'); });
          $('colour-by').addEventListener('change', function (e) {
            view.by = e.target.value; invalidate('legend', 'wf');
          });
          new ResizeObserver(function () { invalidate('wf', 'list'); }).observe(cv);
          // A live capture's time runs on between events: open bars stretch, the followed time axis extends. Up to 5
          // redraws a second while something is open, 1 otherwise, and never more than keeps drawing under 1/8 of the
          // time (a redraw of 10,000 bars is not free).
          setInterval(function () {
            if (!S.connected || !S.capture || !S.capture.live) return;
            var since = performance.now() - S.drawnAt, open = S.summary && S.summary.open > 0;
            if (since >= Math.max(open ? 190 : 990, 8 * (S.drawMs || 0))) invalidate('wf');
          }, 100);

          function renderLegend() {
            var lg = $('legend'), f = document.createDocumentFragment();
            function key(colour, text, cls) {
              var k = f.appendChild(el('span', 'key' + (cls ? ' ' + cls : '')));
              k.appendChild(el('i', 'sw')).style.background = colour;
              k.appendChild(document.createTextNode(visible(text)));
              k.title = visible(text);
            }
            if (view.by === 'outcome') {
              Object.keys(OUTCOME).forEach(function (o) { key(OUTCOME[o], o); });
            } else {
              var shown = 0;
              S.resources.forEach(function (i, k) { if (shown++ < 12) key(PALETTE[i % PALETTE.length], k, 'res'); });
              if (S.resources.size > 12) f.appendChild(el('span', 'key', '… ' + (S.resources.size - 12) +
                ' more resources (colours repeat)'));
            }
            [['g-cancel', '✕', ' cancelled'], ['g-error', '▲', ' failed'], ['g-fault', '◆', ' fault injected'],
              ['g-seek', '▶', ' seek'], ['', '○', ' no body'], ['g-pause', '– –', ' paused'],
              ['', '┈', ' waiting / since the last byte']
            ].forEach(function (m) {
              var k = f.appendChild(el('span', 'key'));
              k.appendChild(el('span', m[0], m[1]));
              k.appendChild(document.createTextNode(m[2]));
            });
            lg.replaceChildren(f);
          }

          // ---- Exchange list: only the rows in sight exist --------------------------------------------------------

          var ROW = 22, HEAD = 24, stick = true, filtered = [];
          var listEl = $('exchanges'), thead = listEl.appendChild(el('div', 'thead'));
          var tbody = listEl.appendChild(el('div', 'tbody'));
          ['#', 'host', 'path', 'range', 'status', 'Content-Range', 'delivered/expected', 'media', 'outcome',
            'findings'].forEach(function (h) { thead.appendChild(el('span', null, h)); });
          var F = { host: $('f-host'), path: $('f-path'), status: $('f-status'), finding: $('f-finding') };
          Object.keys(F).forEach(function (k) {
            F[k].addEventListener('input', function () { invalidate('filter'); });
          });

          // `206`, `4xx`, `20` (a prefix), `-` (no status yet); several separated by commas or spaces.
          function statusTest(s) {
            var alts = s.trim().toLowerCase().split(/[\s,|]+/).filter(Boolean);
            if (!alts.length) return null;
            var res = alts.map(function (a) {
              if (a === '-' || a === 'none') return null;
              return new RegExp('^' + a.replace(/[^0-9x]/g, '').replace(/x/g, '[0-9]'));
            });
            return function (st) {
              return res.some(function (re) { return re === null ? st == null : st != null && re.test(String(st)); });
            };
          }
          function refilter() {
            var h = F.host.value.trim().toLowerCase(), p = F.path.value.trim().toLowerCase();
            var fc = F.finding.value.trim().toLowerCase(), st = statusTest(F.status.value);
            filtered = [];
            for (var i = 0; i < S.order.length; i++) {
              var x = S.exchanges.get(S.order[i]);
              if (h && x._lh.indexOf(h) < 0) continue;
              if (p && x._lp.indexOf(p) < 0) continue;
              if (st && !st(x.st)) continue;
              if (fc && !x.fx.some(function (c) { return String(c).toLowerCase().indexOf(fc) >= 0; })) continue;
              filtered.push(x.id);
            }
            $('count').textContent = filtered.length === S.order.length ? String(filtered.length)
              : filtered.length + ' of ' + S.order.length;
          }
          function cellTexts(x) {
            var m = x.media ? x.media.label : '';
            var o = x.o + (x.fault.length ? ' FAULT' : '') + (x.seek ? ' seek' : '');
            return [x.id, x.h, x.p, x.rq == null ? '' : x.rq, x.st == null ? '…' : x.st, x.cr == null ? '' : x.cr,
              x.got + ' / ' + (x.exp == null ? '?' : x.exp), m, o, x.fx.join(' ')];
          }
          var CELL_CLASS = [null, null, null, null, null, null, null, null, 'oc', 'fx'];
          function makeRow(x, i) {
            var r = el('div', 'row o-' + (OUTCOME[x.o] ? x.o : 'other') + (x.id === S.selected ? ' sel' : ''));
            r.setAttribute('data-id', String(x.id));
            r._id = x.id;
            r.style.top = i * ROW + 'px';
            cellTexts(x).forEach(function (t, k) {
              var c = r.appendChild(el('span', CELL_CLASS[k], t));
              if (k === 4 && x.st >= 400) c.className = 'bad';
              if (k === 6 && x.rcv != null && x.rcv !== x.got) c.title = 'received from the origin: ' + x.rcv + ' B';
              else if (k > 0 && String(t).length > 16) c.title = c.textContent;
            });
            return r;
          }
          function renderRows() {
            tbody.style.height = filtered.length * ROW + 'px';
            if (stick) listEl.scrollTop = listEl.scrollHeight;
            var top = listEl.scrollTop - HEAD;
            var first = Math.max(0, Math.floor(top / ROW) - 4);
            var last = Math.min(filtered.length, Math.ceil((top + listEl.clientHeight) / ROW) + 4);
            var f = document.createDocumentFragment();
            for (var i = first; i < last; i++) f.appendChild(makeRow(S.exchanges.get(filtered[i]), i));
            tbody.replaceChildren(f);
          }
          listEl.addEventListener('scroll', function () {
            stick = listEl.scrollTop + listEl.clientHeight >= listEl.scrollHeight - 4;
            invalidate('list');
          });
          tbody.addEventListener('click', function (e) {
            var r = e.target.closest('[data-id]');
            if (r) select(r._id, true);
          });

          function select(id, fromList) {
            S.selected = id;
            invalidate('list', 'wf');
            if (!fromList) {
              var i = filtered.indexOf(id), y = HEAD + i * ROW;
              if (i >= 0 && (y < listEl.scrollTop + HEAD || y + ROW > listEl.scrollTop + listEl.clientHeight)) {
                stick = false;
                listEl.scrollTop = y - listEl.clientHeight / 2;
              }
            }
            loadDetail(id);
          }

          // ---- Detail ------------------------------------------------------------------------------------------

          var detailSeq = 0, detailAt = 0, detailTimer = null;
          function loadDetail(id) {
            var seq = ++detailSeq, box = $('detail');
            detailAt = performance.now();
            if (box._id !== id) box.replaceChildren(el('h2', null, 'Exchange #' + id), el('p', 'hint', 'loading…'));
            fetch('/api/exchange/' + encodeURIComponent(id) + qs, { cache: 'no-store' })
              .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
              .then(function (d) { if (seq === detailSeq) renderDetail(id, d); })
              .catch(function (err) {
                if (seq !== detailSeq) return;
                box.replaceChildren(el('h2', null, 'Exchange #' + id), el('p', 'hint', String(err)));
              });
          }
          // An open exchange that is selected is fetched again as it changes, at most once a second.
          function refreshDetailSoon() {
            if (detailTimer) return;
            detailTimer = setTimeout(function () {
              detailTimer = null;
              if (S.selected != null) loadDetail(S.selected);
            }, Math.max(0, 1000 - (performance.now() - detailAt)));
          }
          function table(cls, heads, rows) {
            var t = el('table', 'grid ' + cls), tr;
            if (heads) {
              tr = t.appendChild(el('tr'));
              heads.forEach(function (h) { tr.appendChild(el('th', null, h)); });
            }
            rows.forEach(function (r) {
              tr = t.appendChild(el('tr'));
              r.forEach(function (c) { tr.appendChild(el('td', typeof c === 'number' ? 'n' : null, c)); });
            });
            return t;
          }
          // Head lines exactly as they crossed the wire. A flag [what, why] highlights the lines `what` names: a field
          // name (any case), or the whole line.
          function norm(s) { return String(s).replace(/[\r\n]+$/, '').trim().toLowerCase(); }
          function headPre(lines, flags, used) {
            var pre = el('pre', 'head');
            arr(lines).forEach(function (line) {
              line = String(line);
              var colon = line.indexOf(':'), whole = norm(line);
              var name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : null;
              var s = pre.appendChild(el('span', 'ln', line));
              flags.forEach(function (fl) {
                var what = norm(fl[0]);
                if (what !== name && what !== whole) return;
                used.add(fl);
                s.classList.add('flag');
                s.appendChild(el('span', 'note', '   ⚑ ' + fl[1]));
              });
            });
            if (!arr(lines).length) pre.appendChild(el('span', 'ln', '(none yet)'));
            return pre;
          }
          // The body's arrival (chunks: offset reached) and what the client got (deliveries), time × offset.
          function chunkCanvas(x, chunks, deliveries) {
            var c = el('canvas', 'chunks');
            var pts = chunks.map(function (k) { return [k[0], k[1] + k[2]]; });
            var base = x ? x._base : chunks.length ? chunks[0][1] : 0;
            var dl = deliveries.map(function (d) { return [d[0], base + d[1]]; });
            var all = pts.concat(dl), t0 = x ? x.t0 : Infinity, t1 = -Infinity, v0 = base, v1 = base + 1;
            all.forEach(function (p) { t0 = Math.min(t0, p[0]); t1 = Math.max(t1, p[0]); v1 = Math.max(v1, p[1]); });
            chunks.forEach(function (k) { v0 = Math.min(v0, k[1]); });
            if (!(t1 > t0)) t1 = t0 + 1;
            requestAnimationFrame(function () {
              var w = c.clientWidth || 400, h = c.clientHeight || 130, dpr = window.devicePixelRatio || 1;
              c.width = w * dpr; c.height = h * dpr;
              var g = c.getContext('2d'), L = 6, R = 6, T = 6, B = 16;
              g.scale(dpr, dpr);
              function X(t) { return L + (t - t0) / (t1 - t0) * (w - L - R); }
              function Y(v) { return h - B - (v - v0) / (v1 - v0) * (h - T - B); }
              g.font = '10px system-ui, sans-serif'; g.fillStyle = '#555';
              g.fillText(fmtT(t0), L, h - 3);
              g.textAlign = 'right'; g.fillText(fmtT(t1) + ' · top ' + fmtBytes(v1), w - R, h - 3);
              g.strokeStyle = '#4e79a7'; g.lineWidth = 2; g.beginPath();
              chunks.forEach(function (k) { g.moveTo(X(k[0]), Y(k[1])); g.lineTo(X(k[0]), Y(k[1] + k[2])); });
              g.stroke();
              g.strokeStyle = '#1d2330'; g.lineWidth = 1.4; g.setLineDash([5, 3]); g.beginPath();
              dl.forEach(function (p, i) { if (i) g.lineTo(X(p[0]), Y(p[1])); else g.moveTo(X(p[0]), Y(p[1])); });
              g.stroke();
            });
            return c;
          }
          function capped(rows, n, f) {
            f.appendChild(table('', rows.heads, rows.list.slice(0, n)));
            if (rows.list.length > n) f.appendChild(el('p', 'hint', '… ' + (rows.list.length - n) + ' more'));
          }
          function renderDetail(id, d) {
            var box = $('detail'), x = S.exchanges.get(id), f = document.createDocumentFragment();
            var keep = box._id === id ? box.scrollTop : 0;
            box._id = id;
            f.appendChild(el('h2', null, 'Exchange #' + id));
            if (x) {
              var facts = [['request', String(x.m) + ' ' + String(x.h) + String(x.p)],
                ['protocol', x.v + ' · conn ' + x.c + (x.s != null ? ' · stream ' + x.s : '')],
                ['range asked', x.rq == null ? 'none' : x.rq], ['status', x.st == null ? 'no response head yet' : x.st],
                ['Content-Range', x.cr == null ? 'none' : x.cr],
                ['body', 'delivered ' + x.got + ' B · received ' + (x.rcv == null ? '?' : x.rcv) + ' B · expected ' +
                  (x.exp == null ? '?' : x.exp + ' B')],
                ['outcome', x.o + (x.seek ? ' · seek' : '')],
                ['time', 'asked ' + fmtT(x.t0) + ' · first byte ' + fmtT(x.tf) + ' · end ' + fmtT(x.t1)]];
              if (x.fault.length) facts.push(['fault', x.fault.join(', ')]);
              if (x.pause.length) facts.push(['paused', x.pause.map(function (p) {
                return fmtT(p[0]) + ' → ' + (p[1] == null ? 'now' : fmtT(p[1]));
              }).join(', ')]);
              f.appendChild(table('facts', null, facts));
            }
            var media = d.media || (x && x.media);
            if (media) {
              f.appendChild(el('h3', null, 'Media span'));
              f.appendChild(el('p', null, media.label + (typeof media.from === 'number' && typeof media.to === 'number'
                ? ': ' + media.from + ' s → ' + media.to + ' s in media time' : '')));
            }
            var flags = arr(d.flags), used = new Set();
            f.appendChild(el('h3', null, 'Request head'));
            f.appendChild(headPre(d.request, flags, used));
            f.appendChild(el('h3', null, 'Response head'));
            f.appendChild(headPre(d.response, flags, used));
            if (Array.isArray(d.clientResponse)) {
              f.appendChild(el('h3', null, 'Response head as the client got it (rewritten by --fault)'));
              f.appendChild(headPre(d.clientResponse, flags, used));
            }
            var rest = flags.filter(function (fl) { return !used.has(fl); });
            if (rest.length) {
              var fu = f.appendChild(el('ul', 'fl'));
              rest.forEach(function (fl) { fu.appendChild(el('li', 'finding sev-warn', fl[0] + ': ' + fl[1])); });
            }
            var chunks = arr(d.chunks), dels = arr(d.deliveries);
            f.appendChild(el('h3', null, 'Chunks (' + chunks.length + ')' + (dels.length ? ' and deliveries' : '')));
            if (chunks.length || dels.length) f.appendChild(chunkCanvas(x, chunks, dels));
            capped({ heads: ['arrival', 'offset', 'length'], list: chunks.map(function (k) {
              return [fmtT(k[0]), k[1], k[2]];
            }) }, 200, f);
            if (dels.length) {
              capped({ heads: ['delivered at', 'bytes so far'], list: dels.map(function (k) {
                return [fmtT(k[0]), k[1]];
              }) }, 200, f);
            }
            var fs = arr(d.findings);
            f.appendChild(el('h3', null, 'Findings (' + fs.length + ')'));
            var ul = f.appendChild(el('ul', 'fl'));
            fs.forEach(function (fd) {
              var li = ul.appendChild(findingItem(fd, false)), ev = arr(fd.evidence);
              if (ev.length) {
                var pre = li.appendChild(el('pre'));
                ev.forEach(function (line) { pre.appendChild(el('span', 'ln', line)); });
              }
            });
            box.replaceChildren(f);
            box.scrollTop = keep;
          }

          // ---- Findings ----------------------------------------------------------------------------------------

          var findingsSig = '', FINDINGS_SHOWN = 2000;
          function findingItem(fd, linked) {
            var li = el('li', 'finding sev-' + sevClass(fd.sev));
            li.appendChild(el('span', 'sev sev-' + sevClass(fd.sev), fd.sev));
            li.appendChild(el('code', 'code', fd.code));
            if (linked && fd.ex != null) {
              li._ex = fd.ex;
              li.classList.add('click');
              li.setAttribute('data-ex', String(fd.ex));
              li.appendChild(el('span', 'exl', '#' + fd.ex));
            }
            li.appendChild(el('span', null, fd.msg));
            return li;
          }
          function renderFindings() {
            var sig = JSON.stringify(S.findings);
            if (sig === findingsSig) return;
            findingsSig = sig;
            var f = document.createDocumentFragment(), counts = { error: 0, warn: 0, info: 0 };
            S.findings.forEach(function (fd, i) {
              counts[sevClass(fd.sev)]++;
              if (i < FINDINGS_SHOWN) f.appendChild(findingItem(fd, true));
            });
            if (S.findings.length > FINDINGS_SHOWN) {
              f.appendChild(el('li', 'hint', '… ' + (S.findings.length - FINDINGS_SHOWN) +
                ' more (filter the exchanges by finding code)'));
            }
            $('findings').replaceChildren(f);
            $('findings-count').textContent = S.findings.length + ' · ' + counts.error + ' error, ' + counts.warn +
              ' warn, ' + counts.info + ' info';
          }
          $('findings').addEventListener('click', function (e) {
            var li = e.target.closest('li');
            if (li && li._ex != null) select(li._ex, false);
          });

          // ---- Connection --------------------------------------------------------------------------------------

          if (!token) {
            setStatus('down', 'no token in the address (?token=)');
            return;
          }
          var es = new EventSource('/api/events' + qs);
          es.onopen = function () {
            S.connected = true;
            if (openAt == null) openAt = performance.now();
            setStatus('live', 'live');
          };
          es.onerror = function () {
            S.connected = false;
            if (es.readyState === EventSource.CLOSED) setStatus('down', 'disconnected');
            else setStatus('wait', 'disconnected · reconnecting…');
            invalidate('wf');
          };
          function handler(fn) {
            return function (e) {
              var d;
              try { d = JSON.parse(e.data); } catch (err) { return; }
              if (d && typeof d === 'object') fn(d);
            };
          }
          es.addEventListener('reset', handler(onReset));
          es.addEventListener('update', handler(onUpdate));
        })();
        </script>
        </body>
        </html>
        """#
}
