import Foundation
import RangeTapCore

/// A capture as one self-contained HTML page: a waterfall of every exchange (time × byte
/// offset, one lane per resource), the findings by severity, and the exchange table.
///
/// HTTP/2 streams are grouped under their connection in the exchange table (a row
/// `conn 3 · HTTP/2 · 5 streams` above them), each marked with its stream id (`s5`); the
/// connection legend says which connections were HTTP/2. A capture without HTTP/2 client
/// connections renders as it always did.
///
/// Player lab captures (`record --fault`, `--shape`): the header says how the client's link was
/// shaped, findings about an exchange a fault was injected into are badged `injected` with the
/// rules and counted apart, the waterfall draws what the shaped client got and a mark at each
/// fault, and the exchange table shows the head as the client got it. Without those events the
/// page is as before.
///
/// Everything is inline (CSS, SVG, a few lines of JavaScript); the page loads nothing from
/// anywhere. Text taken from the capture is escaped, control bytes shown as `\xNN`.
public enum HTMLReport {
    /// Most findings listed per code; the rest are counted.
    static let maxFindingsPerCode = 50
    /// Most exchanges whose request and response heads are included (those with warnings or
    /// errors first); the rest are in the HAR export.
    static let maxHeads = 1000

    /// The page for `analysis`. `title` names the capture (its path, say); by default the
    /// capture's start time is used.
    public static func render(_ analysis: CaptureAnalysis, title: String? = nil) -> String {
        let waterfall = WaterfallSVG(analysis)
        let name = title ?? "capture of \(analysis.header.startedAt)"
        var out = ""
        out.reserveCapacity(64 * 1024 + analysis.exchanges.count * 1500)
        out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        let http2 = analysis.connections.contains(where: \.isHTTP2)
        let lab =
            !analysis.shapes.isEmpty
            || analysis.exchanges.contains { !$0.record.faults.isEmpty || !$0.record.deliveries.isEmpty }
        out +=
            "<title>rangetap · \(HTMLEscaping.escape(name))</title>\n<style>\n\(stylesheet)\(http2 ? http2Stylesheet : "")\(lab ? labStylesheet : "")</style>\n</head>\n<body>\n"
        renderHeader(analysis, name: name, into: &out)
        renderWaterfall(analysis, waterfall: waterfall, into: &out)
        renderFindings(analysis, into: &out)
        renderResources(analysis, waterfall: waterfall, into: &out)
        renderExchanges(analysis, waterfall: waterfall, into: &out)
        out +=
            "<footer>Written by rangetap from the capture alone; this page loads nothing from the network.</footer>\n"
        out += "<script>\n\(script)</script>\n</body>\n</html>\n"
        return out
    }

    /// Renders `analysis` and writes the page to `path` (replacing it atomically).
    public static func write(analysis: CaptureAnalysis, to path: String, title: String? = nil) throws {
        try ReportFile.write(Data(render(analysis, title: title).utf8), to: path)
    }

    // MARK: Sections

    private static func renderHeader(_ a: CaptureAnalysis, name: String, into out: inout String) {
        let h = a.header
        let s = a.summary
        out += "<header>\n<h1>rangetap <span class=\"sub\">\(HTMLEscaping.escape(name))</span></h1>\n<p class=\"meta\">"
        var meta = [
            "started \(HTMLEscaping.escape(h.startedAt))", "recorded by \(HTMLEscaping.escape(h.tool))",
            "listening on \(HTMLEscaping.escape(h.listen))",
        ]
        if let upstream = h.upstream {
            meta.append("upstream \(HTMLEscaping.escape(URLRedaction.redactingUserinfo(upstream, if: h.redacted)))")
        }
        meta.append(h.bodies ? "bodies recorded" : "no bodies")
        if !h.hashes { meta.append("no hashes") }
        meta.append(h.redacted ? "secrets redacted" : "secrets kept")
        out += meta.joined(separator: " · ") + "</p>\n"
        if !a.shapes.isEmpty {
            out +=
                "<p class=\"shaped\">client link shaped: "
                + a.shapes.map { shape in
                    let at = ReportFormat.milliseconds(shape.t)
                    if shape.spec == "off" && shape.trace == nil { return "off from \(at) ms" }
                    return
                        "<code>\(HTMLEscaping.escape(shape.spec))</code>\(shape.trace.map { " (trace <code>\(HTMLEscaping.escape($0))</code>)" } ?? "") from \(at) ms"
                }.joined(separator: " · ") + "</p>\n"
        }
        if a.truncatedTail {
            out +=
                "<p class=\"warnline\">The capture ends in an unfinished line (the recorder was stopped mid-write); that event is left out.</p>\n"
        }
        let redundancy = s.uniqueBytes > 0 ? Double(s.bytesFetched) / Double(s.uniqueBytes) : 1
        let cards: [(String, String, String)] = [
            ("requests", String(s.requests), ""),
            ("connections", String(s.connections), "max \(s.maxRequestsPerConnection) requests on one"),
            ("bytes fetched", ReportFormat.bytes(s.bytesFetched), "\(s.bytesFetched) B"),
            (
                "unique bytes", ReportFormat.bytes(s.uniqueBytes),
                "redundancy ×\(ReportFormat.number(redundancy, decimals: 2))"
            ),
            ("cancels", String(s.cancels), ""),
            ("seeks", String(s.seeks), ""),
            ("errors", String(s.errors), ""),
            (
                "findings", "\(s.findings[.error] ?? 0) / \(s.findings[.warn] ?? 0) / \(s.findings[.info] ?? 0)",
                "error / warn / info"
                    + (s.injectedCount > 0 ? "; \(s.injectedCount) more injected by --fault or --map rules" : "")
            ),
        ]
        out += "<div class=\"cards\">"
        for (label, value, note) in cards {
            let alert = (label == "errors" && s.errors > 0) || (label == "findings" && (s.findings[.error] ?? 0) > 0)
            out +=
                "<div class=\"card\(alert ? " alert" : "")\"><div class=\"v\">\(value)</div><div class=\"l\">\(label)</div>"
            if !note.isEmpty { out += "<div class=\"n\">\(note)</div>" }
            out += "</div>"
        }
        out += "</div>\n</header>\n"
    }

    private static func renderWaterfall(_ a: CaptureAnalysis, waterfall: WaterfallSVG, into out: inout String) {
        out += "<section id=\"waterfall\">\n<h2>Waterfall</h2>\n"
        guard !a.exchanges.isEmpty else {
            out += "<p>No exchanges in this capture.</p>\n</section>\n"
            return
        }
        out += "<div class=\"legend\">"
        out +=
            "<span class=\"key\"><svg width=\"34\" height=\"14\"><polyline class=\"bar c0\" points=\"2,12 12,10 22,5 32,2\"/></svg>body bytes arriving (y = offset reached in the resource)</span>"
        out +=
            "<span class=\"key\"><svg width=\"34\" height=\"14\"><line class=\"wait c0\" x1=\"2\" y1=\"7\" x2=\"32\" y2=\"7\"/></svg>waiting for the first byte</span>"
        out +=
            "<span class=\"key\"><svg width=\"22\" height=\"14\"><rect class=\"box c0\" x=\"1\" y=\"2\" width=\"20\" height=\"11\"/></svg>request → end × bytes received</span>"
        out +=
            "<span class=\"key\"><svg width=\"14\" height=\"14\"><line class=\"ask c0\" x1=\"7\" y1=\"1\" x2=\"7\" y2=\"13\"/></svg>range asked</span>"
        out +=
            "<span class=\"key\"><svg width=\"16\" height=\"16\"><g class=\"mark-cancel\"><path d=\"M3,3L13,13M3,13L13,3\"/></g></svg>cancelled by the client</span>"
        out +=
            "<span class=\"key\"><svg width=\"16\" height=\"16\"><g class=\"mark-error\"><path d=\"M8,1L14.5,13L1.5,13Z\"/><text x=\"8\" y=\"11.5\">!</text></g></svg>failed</span>"
        out +=
            "<span class=\"key\"><svg width=\"14\" height=\"14\"><circle class=\"bar nobody c0\" cx=\"7\" cy=\"7\" r=\"3.5\"/></svg>no body</span>"
        if a.exchanges.contains(where: { !$0.record.deliveries.isEmpty }) {
            out +=
                "<span class=\"key\"><svg width=\"34\" height=\"14\"><polyline class=\"client c0\" points=\"2,12 12,11 22,7 32,3\"/></svg>client got (shaped link)</span>"
        }
        if a.exchanges.contains(where: { !$0.record.faults.isEmpty }) {
            out +=
                "<span class=\"key\"><svg width=\"16\" height=\"16\"><g class=\"mark-fault\"><path d=\"M8,1L14,8L8,15L2,8Z\"/></g></svg>fault injected (--fault)</span>"
        }
        out += "</div>\n<div class=\"legend conns\">colour = client connection: "
        let shown = a.connections.prefix(24)
        for c in shown {
            let closed = c.closedBy.map { "closed by \(HTMLEscaping.escape($0.rawValue))" }
            if c.isHTTP2 {
                out +=
                    "<span class=\"conn\"><i class=\"sw \(waterfall.colourClass(connection: c.id))\"></i>\(connectionLabel(c.id, streams: c.streams, upstreamVersions: []))\(closed.map { " <small>(\($0))</small>" } ?? "")</span>"
            } else {
                out +=
                    "<span class=\"conn\"><i class=\"sw \(waterfall.colourClass(connection: c.id))\"></i>conn \(c.id) <small>(\(c.requests) req\(closed.map { ", \($0)" } ?? ""))</small></span>"
            }
        }
        if a.connections.count > shown.count {
            out += "<span class=\"conn\">… \(a.connections.count - shown.count) more</span>"
        }
        out += "</div>\n"
        if waterfall.lanes.count > 1 {
            out +=
                "<p class=\"pick\"><label>show <select id=\"lane-select\"><option value=\"all\">all \(waterfall.lanes.count) resources</option>"
            for (i, lane) in waterfall.lanes.enumerated() {
                out +=
                    "<option value=\"lane-\(i + 1)\">\(i + 1): \(HTMLEscaping.escape(ExchangeFacts.clip(lane.key, 120)))</option>"
            }
            out += "</select></label></p>\n"
        }
        let mediaView = MediaTimelineSVG(a)
        if let mediaView {
            out +=
                "<p class=\"pick\"><label>y axis <select id=\"axis-select\"><option value=\"bytes\">offset in the resource</option><option value=\"media\">media time (\(mediaView.exchanges.count) mapped exchanges)</option></select></label></p>\n"
        }
        out +=
            "<p class=\"hint\">Hover a bar for its details; click it to jump to its row. Bars of \(waterfall.maxPointsPerBar) points at most.</p>\n"
        if let buffer = PlayerBufferSVG(a, time: waterfall.time) { out += buffer.render() }
        out += waterfall.render()
        if let mediaView {
            out += "<div id=\"media-view\" hidden>\n<div class=\"legend\">colour = rendition: "
            for name in mediaView.renditions {
                out +=
                    "<span class=\"conn\"><i class=\"sw c\((mediaView.renditions.firstIndex(of: name) ?? 0) % WaterfallSVG.colourCount)\"></i>\(HTMLEscaping.escape(name))</span>"
            }
            out += " · a box spans request → end × the media seconds fetched</div>\n"
            out += mediaView.render() + "</div>\n"
        }
        out += "</section>\n"
    }

    private static func renderFindings(_ a: CaptureAnalysis, into out: inout String) {
        let all = a.allFindings
        let injected = all.filter(\.injected).count
        out +=
            "<section id=\"findings\">\n<h2>Findings <span class=\"count\">\(all.count)\(injected > 0 ? ", \(injected) of them injected by --fault or --map rules" : "")</span></h2>\n"
        if all.isEmpty { out += "<p>Nothing to report.</p>\n" }
        for severity in Finding.Severity.allCases.sorted(by: >) {
            let group = all.filter { $0.severity == severity }
            guard !group.isEmpty else { continue }
            out +=
                "<details class=\"sev-group\"\(severity > .info || group.count <= 50 ? " open" : "")><summary><span class=\"sev sev-\(severity.rawValue)\">\(severity.rawValue)</span> \(group.count) finding\(group.count == 1 ? "" : "s")"
            var codes: [String: Int] = [:]
            for f in group { codes[f.code, default: 0] += 1 }
            out +=
                " <span class=\"codes\">"
                + codes.sorted { $0.key < $1.key }.map { "\(HTMLEscaping.escape($0.key)) ×\($0.value)" }.joined(
                    separator: ", ") + "</span></summary>\n<ul class=\"findings\">\n"
            var shown: [String: Int] = [:]
            for f in group {
                shown[f.code, default: 0] += 1
                if shown[f.code]! > maxFindingsPerCode { continue }
                out +=
                    "<li class=\"finding sev-\(severity.rawValue)\(f.injected ? " injected" : "")\"><code class=\"code\">\(HTMLEscaping.escape(f.code))</code> "
                if let ex = f.exchange { out += "<a class=\"exref\" href=\"#ex-\(ex)\">#\(ex)</a> " }
                if let rules = f.rules {
                    out +=
                        "<span class=\"inj\">injected by --fault \(rules.map { "<code>\(HTMLEscaping.escape($0))</code>" }.joined(separator: ", "))</span> "
                }
                out += "<span class=\"msg\">\(HTMLEscaping.escape(f.message))</span>"
                let evidence = f.evidence.filter { !$0.isEmpty }
                if !evidence.isEmpty {
                    out +=
                        "<pre class=\"evidence\">" + evidence.map(HTMLEscaping.headerLine).joined(separator: "\n")
                        + "</pre>"
                }
                out += "</li>\n"
            }
            for (code, n) in shown.sorted(by: { $0.key < $1.key }) where n > maxFindingsPerCode {
                out +=
                    "<li class=\"more\">… \(n - maxFindingsPerCode) more <code>\(HTMLEscaping.escape(code))</code> (the exchange table lists every finding code per exchange; rangetap inspect --json has them all)</li>\n"
            }
            out += "</ul>\n</details>\n"
        }
        out += "</section>\n"
    }

    private static func renderResources(_ a: CaptureAnalysis, waterfall: WaterfallSVG, into out: inout String) {
        guard !a.resources.isEmpty else { return }
        out +=
            "<section id=\"resources\">\n<h2>Resources</h2>\n<table class=\"grid\"><thead><tr><th>#</th><th>URL</th><th>length</th><th>requests</th><th>fetched</th><th>unique</th><th>redundancy</th></tr></thead><tbody>\n"
        for (i, r) in a.resources.enumerated() {
            out += "<tr><td class=\"num\">\(i + 1)</td><td class=\"url\">\(HTMLEscaping.escape(r.url))</td>"
            out += "<td class=\"num\">\(r.length.map(String.init) ?? "?")</td><td class=\"num\">\(r.requests)</td>"
            out += "<td class=\"num\">\(r.bytesFetched)</td><td class=\"num\">\(r.uniqueBytes)</td>"
            out += "<td class=\"num\">×\(ReportFormat.number(r.redundancy, decimals: 2))</td></tr>\n"
        }
        out += "</tbody></table>\n</section>\n"
    }

    private static func renderExchanges(_ a: CaptureAnalysis, waterfall: WaterfallSVG, into out: inout String) {
        out += "<section id=\"exchanges\">\n<h2>Exchanges <span class=\"count\">\(a.exchanges.count)</span></h2>\n"
        // Heads for the exchanges that matter most, within a bound.
        var withHeads = Set<Int>()
        for e in a.exchanges where e.findings.contains(where: { $0.severity > .info }) {
            guard withHeads.count < maxHeads else { break }
            withHeads.insert(e.record.id)
        }
        for e in a.exchanges where withHeads.count < maxHeads {
            withHeads.insert(e.record.id)
        }
        if withHeads.count < a.exchanges.count {
            out +=
                "<p class=\"hint\">Request and response heads are included for \(withHeads.count) of \(a.exchanges.count) exchanges (those with warnings first); `rangetap export --har` has them all.</p>\n"
        }
        out += "<table class=\"grid ex\" id=\"exchange-table\"><thead><tr>"
        for h in [
            "#", "start ms", "conn", "reused", "method", "path", "Range", "status", "Content-Range", "body bytes",
            "chunks",
            "ms", "outcome", "findings", "head",
        ] {
            out += "<th>\(h)</th>"
        }
        out += "</tr></thead><tbody>\n"
        for item in ExchangeRow.rows(a.exchanges) {
            switch item {
            case .exchange(let e):
                renderExchangeRow(e, waterfall: waterfall, withHead: withHeads.contains(e.record.id), into: &out)
            case .connection(let id, let streams, let upstream):
                out +=
                    "<tr class=\"h2conn\"><td colspan=\"15\"><i class=\"sw \(waterfall.colourClass(connection: id))\"></i>\(connectionLabel(id, streams: streams.count, upstreamVersions: upstream))</td></tr>\n"
                for s in streams {
                    renderExchangeRow(s, waterfall: waterfall, withHead: withHeads.contains(s.record.id), into: &out)
                }
            }
        }
        out += "</tbody></table>\n</section>\n"
    }

    /// `conn 3 · HTTP/2 · 5 streams`, and the streams' upstream versions when given.
    private static func connectionLabel(_ id: Int, streams: Int, upstreamVersions upstream: [String]) -> String {
        var label = "conn \(id) · HTTP/2 · \(streams) stream\(streams == 1 ? "" : "s")"
        if !upstream.isEmpty {
            label += " · upstream " + upstream.map { "HTTP/\(HTMLEscaping.escape($0))" }.joined(separator: " and ")
        }
        return label
    }

    private static func renderExchangeRow(
        _ e: CaptureAnalysis.Exchange, waterfall: WaterfallSVG, withHead: Bool, into out: inout String
    ) {
        let r = e.record
        let facts = ExchangeFacts(e)
        // Cells without classes (the stylesheet styles columns by position): rows are most of a big page.
        out += "<tr id=\"ex-\(r.id)\" class=\"\(facts.outcomeKind)\">"
        out += "<td>\(r.id)</td><td>\(facts.start)</td>"
        out +=
            "<td><i class=\"sw \(waterfall.colourClass(connection: r.connection))\"></i>\(r.connection)\(r.stream.map { " s\($0)" } ?? "")</td>"
        out += "<td>\(facts.reused)</td><td>\(HTMLEscaping.escape(r.method))</td>"
        out += "<td>\(HTMLEscaping.escape(facts.path))"
        if let m = e.media {
            out += "<br><span class=\"media\">\(HTMLEscaping.escape(TimelineText.mediaCell(m)))</span>"
        }
        if let c = e.cmcd {
            out +=
                "<br><span class=\"cmcd\" title=\"\(HTMLEscaping.escape(c.entries.map(\.text).joined(separator: ",")))\">CMCD \(HTMLEscaping.escape(c.cell))</span>"
        }
        out += "</td><td>\(HTMLEscaping.escape(facts.range))</td>"
        out += (r.status ?? 0) >= 400 ? "<td class=\"bad\">\(facts.status)</td>" : "<td>\(facts.status)</td>"
        out += "<td>\(HTMLEscaping.escape(facts.contentRange))</td>"
        // Received from the origin (or served by rangetap), and delivered when that differs.
        let delivered = r.bytesToClient == r.bytesSent ? "" : " · \(r.bytesToClient) delivered"
        out += "<td title=\"\(r.sentWord) · delivered\">\(r.bytesSent) \(r.sentWord)\(delivered)</td>"
        out += "<td>\(r.chunkCount)</td><td>\(facts.duration)</td>"
        out += "<td>\(HTMLEscaping.escape(facts.outcome))"
        if let rules = r.faultRules {
            out +=
                "<br><span class=\"inj\">\(r.mapRule == nil ? "fault" : "mapped"): \(rules.map { HTMLEscaping.escape($0) }.joined(separator: ", "))</span>"
        }
        out += "</td><td>"
        out += e.findings.map {
            "<span class=\"sev-\($0.severity.rawValue)\($0.injected ? " inj" : "")\">\(HTMLEscaping.escape($0.code))</span>"
        }.joined(separator: " ")
        out += "</td><td>"
        if withHead {
            out += "<details><summary>head</summary><pre class=\"head\">"
            out += HTMLEscaping.escape("\(r.method) \(r.target) \(r.requestVersion)") + "\n"
            out += r.requestHeaders.map { HTMLEscaping.headerLine($0.raw) }.joined(separator: "\n")
            if !r.responseLines.isEmpty {
                out += "\n\n" + r.responseLines.map { HTMLEscaping.headerLine($0.raw) }.joined(separator: "\n")
            }
            if r.clientHeadRewritten {
                out += "\n\n" + HTMLEscaping.escape("as the client got it (rewritten by --fault):") + "\n"
                out += r.clientResponseLines.map { HTMLEscaping.headerLine($0.raw) }.joined(separator: "\n")
            }
            out += "</pre></details>"
        }
        out += "</td></tr>\n"
    }

    // MARK: Style and script

    private static let palette = [
        "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#17becf", "#9c755f", "#c9a227", "#ff6fa0", "#3d3d9e", "#7f7f7f",
    ]

    /// Rules for the HTTP/2 connection rows, only in pages that have them.
    private static let http2Stylesheet = """
        table.ex tr.h2conn td { text-align: left; font-weight: 600; background: #f4f5fa; }

        """

    /// Rules for player lab captures (shaping, faults), only in pages that have them.
    private static let labStylesheet = """
        .shaped { margin: 2px 0 10px; color: #4a148c; }
        .client { fill: none; stroke: var(--c); stroke-width: 1.6; stroke-dasharray: 5 3; opacity: .85; }
        .mark-fault path { fill: #7b1fa2; stroke: #fff; stroke-width: 1; }
        .bl-line { fill: none; stroke: #1565c0; stroke-width: 1.5; }
        .bl circle { fill: #1565c0; } .bl circle.su { fill: #fff; stroke: #1565c0; stroke-width: 2; }
        .bl .bs { fill: #e0001b; }
        span.cmcd { color: #1565c0; font-size: 11px; }
        .inj { display: inline-block; font-size: 11px; padding: 0 4px; border-radius: 3px; background: #f3e5f5; color: #4a148c; }
        li.finding.injected { border-color: #7b1fa2; }
        table.ex td:nth-child(14) span.inj { background: #f3e5f5; color: #4a148c; }

        """

    private static var stylesheet: String {
        var css = """
            :root { color-scheme: light; }
            body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; margin: 0 auto; padding: 12px 18px 40px; max-width: 1380px; color: #1d2330; background: #fbfbfd; }
            h1 { font-size: 22px; margin: 4px 0; } h1 .sub { font-weight: 400; color: #555; font-size: 16px; }
            h2 { font-size: 18px; margin: 26px 0 8px; border-bottom: 1px solid #dde; padding-bottom: 4px; } h2 .count { color: #777; font-weight: 400; }
            h3 { font-size: 14px; margin: 14px 0 2px; font-weight: 600; } h3 .lane-n { color: #777; font-weight: 400; margin-right: 6px; }
            h3 .url { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; word-break: break-all; }
            h3 .lane-facts { color: #555; font-weight: 400; margin-left: 10px; }
            span.media { color: #555; font-size: 11px; }
            .meta { color: #555; margin: 2px 0 10px; } .warnline { color: #8a4b00; background: #fff4df; padding: 4px 8px; }
            .cards { display: flex; flex-wrap: wrap; gap: 8px; }
            .card { background: #fff; border: 1px solid #dde; border-radius: 6px; padding: 6px 12px; min-width: 110px; }
            .card .v { font-size: 20px; font-weight: 600; } .card .l { color: #555; } .card .n { color: #888; font-size: 12px; }
            .card.alert { border-color: #d62728; } .card.alert .v { color: #b71c1c; }
            .legend { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; margin: 4px 0; color: #333; }
            .legend svg { vertical-align: middle; margin-right: 4px; overflow: visible; }
            .conn { white-space: nowrap; } .conn small { color: #777; }
            i.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; background: var(--c); margin-right: 4px; vertical-align: baseline; }
            .pick { margin: 6px 0; } .hint { color: #777; font-size: 12px; margin: 4px 0; }
            svg.waterfall { display: block; width: 100%; height: auto; background: #fff; border: 1px solid #e3e3ea; border-radius: 4px; }
            .grid line { stroke: #eceef3; stroke-width: 1; }
            .axis line { stroke: #555; stroke-width: 1; }
            .axis text { font-size: 11px; fill: #333; } .axis .xt { text-anchor: middle; } .axis .yt { text-anchor: end; }
            .axis .at { font-size: 12px; fill: #555; text-anchor: middle; }
            .axis .len { stroke: #999; stroke-dasharray: 6 4; } .axis .lenl { text-anchor: end; font-size: 11px; fill: #777; }
            .bar { fill: none; stroke: var(--c); stroke-width: 2.4; stroke-linejoin: round; stroke-linecap: round; }
            circle.bar.nobody { fill: #fff; stroke-width: 2; }
            .wait { stroke: var(--c); stroke-width: 1.4; stroke-dasharray: 3 3; opacity: .75; }
            .tail { stroke: var(--c); stroke-width: 1.4; stroke-dasharray: 1 3; opacity: .9; }
            .ask { stroke: var(--c); stroke-width: 4; opacity: .25; stroke-linecap: butt; }
            .box { fill: var(--c); fill-opacity: .13; stroke: var(--c); stroke-opacity: .55; stroke-width: 1; }
            g.ex:hover .box { fill-opacity: .3; }
            g.ex:hover .bar, g.ex:hover .wait { stroke-width: 4.5; opacity: 1; } g.ex { cursor: pointer; }
            .mark-cancel path { stroke: #e0001b; stroke-width: 3; stroke-linecap: round; fill: none; }
            .mark-cancel .delivered { stroke: #e0001b; stroke-width: 2; }
            .mark-error path { fill: #111; stroke: #fff; stroke-width: 1; }
            .mark-error text { fill: #ffd400; font-size: 11px; font-weight: 700; text-anchor: middle; }
            .sev { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 12px; font-weight: 600; color: #fff; }
            .sev.sev-error { background: #c62828; } .sev.sev-warn { background: #d98200; } .sev.sev-info { background: #5b7083; }
            details.sev-group { margin: 6px 0; } details.sev-group > summary { cursor: pointer; font-weight: 600; }
            .codes { font-weight: 400; color: #666; font-size: 12px; }
            ul.findings { list-style: none; padding-left: 8px; margin: 4px 0; }
            li.finding { margin: 6px 0; padding: 4px 8px; border-left: 3px solid #ccd; background: #fff; }
            li.finding.sev-error { border-color: #c62828; } li.finding.sev-warn { border-color: #d98200; }
            code, .mono, pre { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12px; }
            code.code { font-weight: 600; }
            pre { background: #f3f4f8; padding: 4px 8px; margin: 4px 0 0; white-space: pre-wrap; word-break: break-all; }
            .eol { color: #aab; }
            table.grid { border-collapse: collapse; background: #fff; font-size: 12.5px; }
            table.grid th, table.grid td { border: 1px solid #e1e3ea; padding: 3px 6px; vertical-align: top; text-align: left; }
            table.grid th { background: #f0f1f6; position: sticky; top: 0; }
            td.num, table.ex td:nth-child(-n+3), table.ex td:nth-child(8), table.ex td:nth-child(10), table.ex td:nth-child(11), table.ex td:nth-child(12) { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
            table.ex { width: 100%; } table.grid th { white-space: nowrap; }
            td.url, table.ex td:nth-child(6) { font-family: ui-monospace, "DejaVu Sans Mono", monospace; word-break: break-all; min-width: 180px; max-width: 420px; }
            table.ex td:nth-child(15) { white-space: nowrap; } table.ex td:nth-child(13) { min-width: 210px; }
            table.ex td:nth-child(7), table.ex td:nth-child(9) { font-family: ui-monospace, "DejaVu Sans Mono", monospace; white-space: nowrap; }
            table.ex tr.cancelled td:nth-child(13) { color: #c00018; } table.ex tr.failed td:nth-child(13) { color: #fff; background: #b71c1c; }
            table.ex tr.open td:nth-child(13) { color: #8a6d00; }
            table.ex td.bad { color: #b71c1c; font-weight: 600; }
            table.ex td:nth-child(14) span { display: inline-block; font-size: 11px; padding: 0 4px; border-radius: 3px; margin: 1px; background: #eef; }
            table.ex td:nth-child(14) .sev-error { background: #fde0e0; color: #8b0000; } table.ex td:nth-child(14) .sev-warn { background: #fff0d0; color: #7a4a00; }
            #tip { position: absolute; z-index: 10; background: #fff; border: 1px solid #99a; border-radius: 4px; padding: 4px 8px; font-size: 12px; box-shadow: 0 2px 8px rgba(0,0,0,.15); pointer-events: none; max-width: 520px; }
            #tip b { font-weight: 600; color: #555; }
            tr:target td, tr.hl td { background: #fff6bf; }
            pre.head { max-width: 560px; }
            footer { margin-top: 30px; color: #999; font-size: 12px; }

            """
        for (i, c) in palette.enumerated() { css += ".c\(i) { --c: \(c); }\n" }
        return css
    }

    private static let script = """
        (function () {
          var axis = document.getElementById('axis-select');
          if (axis) {
            axis.addEventListener('change', function () {
              var media = axis.value === 'media';
              document.getElementById('media-view').hidden = !media;
              var pick = document.getElementById('lane-select');
              if (pick) pick.closest('p').hidden = media;
              document.querySelectorAll('section.lane').forEach(function (lane) {
                lane.hidden = media || (pick && pick.value !== 'all' && lane.id !== pick.value);
              });
            });
          }
          var select = document.getElementById('lane-select');
          if (select) {
            select.addEventListener('change', function () {
              document.querySelectorAll('section.lane').forEach(function (lane) {
                lane.hidden = select.value !== 'all' && lane.id !== select.value;
              });
            });
          }
          // Hovering a bar highlights its table row; bars without a <title> (big captures) get the row as a tooltip.
          var heads = Array.prototype.map.call(document.querySelectorAll('#exchange-table thead th'), function (th) { return th.textContent; });
          var tip = document.createElement('div');
          tip.id = 'tip';
          tip.hidden = true;
          document.body.appendChild(tip);
          var current = null;
          function rowOf(g) { return g && document.getElementById('ex-' + g.getAttribute('data-ex')); }
          document.addEventListener('mouseover', function (ev) {
            var g = ev.target.closest ? ev.target.closest('g.ex') : null;
            if (g === current) return;
            if (current && rowOf(current)) rowOf(current).classList.remove('hl');
            current = g;
            tip.hidden = true;
            var row = rowOf(g);
            if (!row) return;
            row.classList.add('hl');
            if (g.querySelector('title')) return;
            tip.textContent = '';
            Array.prototype.forEach.call(row.cells, function (td, i) {
              if (i >= heads.length - 1 || !td.textContent) return;
              var line = document.createElement('div');
              var b = document.createElement('b');
              b.textContent = heads[i] + ': ';
              line.appendChild(b);
              line.appendChild(document.createTextNode(td.textContent));
              tip.appendChild(line);
            });
            tip.hidden = false;
          });
          document.addEventListener('mousemove', function (ev) {
            if (tip.hidden) return;
            tip.style.left = (ev.pageX + 14) + 'px';
            tip.style.top = (ev.pageY + 14) + 'px';
          });
        })();

        """
}
