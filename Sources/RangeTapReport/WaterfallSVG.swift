import RangeTapCore

/// The waterfall of a capture as inline SVG: time on x, byte offset in the resource on y, one
/// bar per exchange rising as its chunks arrive, one lane per resource.
///
/// Every exchange is one `<g class="ex">` holding exactly one element of class `bar` (a
/// polyline of its chunk arrivals, or a circle when no body byte can be placed), a `<title>`
/// for hover, and its marks: `mark-cancel` (✕) where the client cancelled, `mark-error` (▲)
/// where it failed. Chunk points are thinned to whole pixels and capped per bar, so the file
/// stays small for captures with many exchanges or many chunks.
///
/// Player lab captures add, only where they have them: a dashed polyline of class `client`
/// beside the bar (the offset the shaped client had been sent, from `delivered` events), and a
/// `mark-fault` (◆) at each fault a `--fault` rule injected, the rule in its `<title>`.
struct WaterfallSVG: Sendable {
    /// One resource (URL) and its exchanges, in request order.
    struct Lane: Sendable {
        /// The URL (or request target when none was fetched).
        var key: String
        /// Figures from the analysis, when it has them.
        var resource: CaptureAnalysis.Resource?
        /// Its exchanges.
        var exchanges: [CaptureAnalysis.Exchange]
    }

    /// Number of colours connections cycle through (CSS classes `c0`…).
    static let colourCount = 10

    /// Width of the drawing in CSS pixels.
    let width = 1320.0
    private let left = 88.0
    private let right = 28.0
    private let top = 14.0
    private let bottom = 40.0

    let analysis: CaptureAnalysis
    /// Most points drawn for one bar.
    let maxPointsPerBar: Int
    /// Whether each exchange carries its `<title>` (hover text); without, the page's script
    /// shows the exchange's table row on hover.
    let titles: Bool
    /// Lanes, in order of the resources' first request.
    let lanes: [Lane]
    private let colourIndex: [Int: Int]
    /// The time axis, in milliseconds since the capture started.
    let time: (lower: Double, upper: Double)

    /// A waterfall of `analysis`; bars get at most `maxPointsPerBar` points, fewer when
    /// `pointBudget` shared between all bars is smaller. Above `titlesUpTo` exchanges, hover
    /// text is left to the page's script.
    init(_ analysis: CaptureAnalysis, maxPointsPerBar: Int = 200, pointBudget: Int = 120_000, titlesUpTo: Int = 2000) {
        self.analysis = analysis
        titles = analysis.exchanges.count <= titlesUpTo
        var byKey: [String: Int] = [:]
        var lanes: [Lane] = []
        for r in analysis.resources where byKey[r.url] == nil {
            byKey[r.url] = lanes.count
            lanes.append(Lane(key: r.url, resource: r, exchanges: []))
        }
        for e in analysis.exchanges {
            let key = e.record.method == "CONNECT" ? "CONNECT tunnels" : e.record.resource
            if let i = byKey[key] {
                lanes[i].exchanges.append(e)
            } else {
                byKey[key] = lanes.count
                lanes.append(Lane(key: key, resource: nil, exchanges: [e]))
            }
        }
        self.lanes = lanes.filter { !$0.exchanges.isEmpty }

        var colours: [Int: Int] = [:]
        for c in analysis.connections where colours[c.id] == nil { colours[c.id] = colours.count % Self.colourCount }
        for e in analysis.exchanges where colours[e.record.connection] == nil {
            colours[e.record.connection] = colours.count % Self.colourCount
        }
        colourIndex = colours

        let withChunks = max(1, analysis.exchanges.filter { $0.record.chunkCount > 0 }.count)
        self.maxPointsPerBar = max(8, min(maxPointsPerBar, pointBudget / withChunks))

        var lo = Double.infinity
        var hi = -Double.infinity
        for e in analysis.exchanges {
            let r = e.record
            lo = min(lo, Double(r.start) / 1e6)
            let last =
                [r.end, r.lastChunkAt, r.responseAt, r.start, r.deliveries.last?.t, r.faults.last?.t].compactMap { $0 }
                .max() ?? r.start
            hi = max(hi, Double(last) / 1e6)
        }
        if !lo.isFinite { (lo, hi) = (0, 1) }
        if hi - lo < 0.01 { hi = lo + 1 }
        time = (lo, hi + (hi - lo) * 0.015)
    }

    /// The colour class of a connection: `c0`…`c9`.
    func colourClass(connection: Int) -> String { "c\(colourIndex[connection] ?? (connection % Self.colourCount))" }

    /// Height of one lane's plot area: taller when there are few lanes.
    private var plotHeight: Double {
        switch lanes.count {
        case 0...1: 430
        case 2...3: 300
        case 4...8: 220
        default: 160
        }
    }

    /// Every lane as an SVG block, each in a `<section class="lane">`.
    func render() -> String {
        var out = ""
        for (i, lane) in lanes.enumerated() {
            render(lane, index: i, into: &out)
        }
        return out
    }

    // MARK: One lane

    private func render(_ lane: Lane, index: Int, into out: inout String) {
        let height = top + plotHeight + bottom
        let x = AxisScale(lower: time.lower, upper: time.upper, pixelStart: left, pixelEnd: width - right)
        let yTop = Double(max(1, laneTop(lane)))
        let y = AxisScale(lower: 0, upper: yTop, pixelStart: top + plotHeight, pixelEnd: top)

        out += "<section class=\"lane\" id=\"lane-\(index + 1)\">\n<h3>"
        out += "<span class=\"lane-n\">resource \(index + 1) of \(lanes.count)</span> "
        out += "<span class=\"url\">\(HTMLEscaping.escape(lane.key))</span>"
        out += "<span class=\"lane-facts\">"
        if let r = lane.resource {
            out += r.length.map { "length \(ReportFormat.bytes($0)) (\($0) B)" } ?? "length unknown"
            out +=
                " · \(r.requests) request\(r.requests == 1 ? "" : "s") · fetched \(ReportFormat.bytes(r.bytesFetched))"
            out += " · redundancy ×\(ReportFormat.number(r.redundancy, decimals: 2))"
        } else {
            out += "\(lane.exchanges.count) exchange\(lane.exchanges.count == 1 ? "" : "s")"
        }
        out += "</span></h3>\n"
        out +=
            "<svg class=\"waterfall\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" role=\"img\">\n"

        // Grid and axes.
        out += "<g class=\"grid\">"
        let xTicks = x.decimalTicks(count: 12)
        let yTicks = y.byteTicks(count: plotHeight >= 300 ? 8 : 5)
        for t in xTicks {
            let px = f(x.pixel(t.value))
            out += "<line x1=\"\(px)\" y1=\"\(f(top))\" x2=\"\(px)\" y2=\"\(f(top + plotHeight))\"/>"
        }
        for t in yTicks {
            let py = f(y.pixel(t.value))
            out += "<line x1=\"\(f(left))\" y1=\"\(py)\" x2=\"\(f(width - right))\" y2=\"\(py)\"/>"
        }
        out += "</g>\n<g class=\"axis\">"
        out +=
            "<line x1=\"\(f(left))\" y1=\"\(f(top + plotHeight))\" x2=\"\(f(width - right))\" y2=\"\(f(top + plotHeight))\"/>"
        out += "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + plotHeight))\"/>"
        for t in xTicks {
            let px = f(x.pixel(t.value))
            out += "<line x1=\"\(px)\" y1=\"\(f(top + plotHeight))\" x2=\"\(px)\" y2=\"\(f(top + plotHeight + 5))\"/>"
            out += "<text class=\"xt\" x=\"\(px)\" y=\"\(f(top + plotHeight + 18))\">\(t.label)</text>"
        }
        for t in yTicks {
            let py = f(y.pixel(t.value))
            out += "<line x1=\"\(f(left - 5))\" y1=\"\(py)\" x2=\"\(f(left))\" y2=\"\(py)\"/>"
            out += "<text class=\"yt\" x=\"\(f(left - 8))\" y=\"\(f(y.pixel(t.value) + 4))\">\(t.label)</text>"
        }
        if let length = lane.resource?.length, length > 0 {
            let py = f(y.pixel(Double(length)))
            out += "<line class=\"len\" x1=\"\(f(left))\" y1=\"\(py)\" x2=\"\(f(width - right))\" y2=\"\(py)\"/>"
            out +=
                "<text class=\"lenl\" x=\"\(f(width - right - 4))\" y=\"\(f(y.pixel(Double(length)) - 4))\">end of resource (\(length) B)</text>"
        }
        out +=
            "<text class=\"at\" x=\"\(f((left + width - right) / 2))\" y=\"\(f(height - 4))\">time since capture start (ms)</text>"
        out +=
            "<text class=\"at\" transform=\"translate(14 \(f(top + plotHeight / 2))) rotate(-90)\">offset in resource</text>"
        out += "</g>\n"

        // Exchanges: the bars first, then every mark on top of them.
        var marks = ""
        out += "<g class=\"bars\">\n"
        for e in lane.exchanges {
            renderExchange(e, length: lane.resource?.length, x: x, y: y, into: &out, marks: &marks)
        }
        out += "</g>\n<g class=\"marks\">\n" + marks + "</g>\n</svg>\n</section>\n"
    }

    /// The highest offset the lane must show: the resource's length or the highest byte received.
    private func laneTop(_ lane: Lane) -> Int64 {
        var topValue = lane.resource?.length ?? 0
        for e in lane.exchanges {
            topValue = max(topValue, BarGeometry(e).highest, e.resourceSpan?.upperBound ?? 0)
        }
        return topValue
    }

    private func renderExchange(
        _ e: CaptureAnalysis.Exchange, length: Int64?, x: AxisScale, y: AxisScale, into out: inout String,
        marks: inout String
    ) {
        let r = e.record
        let facts = ExchangeFacts(e)
        let colour = colourClass(connection: r.connection)
        let geometry = BarGeometry(e)
        out += "<a href=\"#ex-\(r.id)\"><g class=\"ex \(facts.outcomeKind)\" data-ex=\"\(r.id)\">"
        if titles {
            out += "<title>" + facts.tooltipLines.map(HTMLEscaping.escape).joined(separator: "\n") + "</title>"
        }

        let startX = x.pixel(Double(r.start) / 1e6)
        let endX = r.end.map { x.pixel(Double($0) / 1e6) }
        // What was asked: a faint vertical band at the request time.
        if let asked = geometry.asked(length: length) {
            let y1 = y.pixel(min(Double(asked.lowerBound), y.upper))
            let y2 = y.pixel(min(Double(asked.upperBound), y.upper))
            if abs(y1 - y2) >= 1 {
                out +=
                    "<line class=\"ask \(colour)\" x1=\"\(f(startX))\" y1=\"\(f(y1))\" x2=\"\(f(startX))\" y2=\"\(f(y2))\"/>"
            }
        }

        var endPoint: (x: Double, y: Double)
        let points = geometry.points
        if let first = points.first, let last = points.last {
            let base = y.pixel(Double(geometry.base ?? first.offset))
            let firstX = x.pixel(Double(first.t) / 1e6)
            // The exchange's territory: request to end × bytes received, at least a few pixels
            // so that a fast, small fetch still shows.
            let lastX = x.pixel(Double(last.t) / 1e6)
            let right = max(endX ?? lastX, lastX)
            let topY = y.pixel(Double(geometry.highest))
            let w = max(4, right - startX)
            let h = max(4, base - topY)
            out +=
                "<rect class=\"box \(colour)\" x=\"\(f(startX))\" y=\"\(f(base - h))\" width=\"\(f(w))\" height=\"\(f(h))\"/>"
            // Waiting for the first byte.
            if firstX - startX >= 1 {
                out +=
                    "<line class=\"wait \(colour)\" x1=\"\(f(startX))\" y1=\"\(f(base))\" x2=\"\(f(firstX))\" y2=\"\(f(base))\"/>"
            }
            let pixels = BarGeometry.thin(
                points.map { (x.pixel(Double($0.t) / 1e6), y.pixel(Double($0.offset))) }, cap: maxPointsPerBar)
            out += "<polyline class=\"bar \(colour)\" points=\""
            for (i, p) in pixels.enumerated() {
                if i > 0 { out += " " }
                out += f(p.0) + "," + f(p.1)
            }
            out += "\"/>"
            renderDeliveries(
                r, base: geometry.base ?? first.offset, from: first.t, colour: colour, x: x, y: y, into: &out)
            endPoint = (x.pixel(Double(last.t) / 1e6), y.pixel(Double(last.offset)))
            if let endX, endX - endPoint.x > 1 {
                // From the last chunk to the end, cancel or failure.
                out +=
                    "<line class=\"tail \(colour)\" x1=\"\(f(endPoint.x))\" y1=\"\(f(endPoint.y))\" x2=\"\(f(endX))\" y2=\"\(f(endPoint.y))\"/>"
                endPoint.x = endX
            }
        } else {
            let py = y.pixel(Double(geometry.base ?? 0))
            if let endX, endX - startX > 1 {
                out +=
                    "<line class=\"wait \(colour)\" x1=\"\(f(startX))\" y1=\"\(f(py))\" x2=\"\(f(endX))\" y2=\"\(f(py))\"/>"
            }
            out += "<circle class=\"bar nobody \(colour)\" cx=\"\(f(startX))\" cy=\"\(f(py))\" r=\"3.5\"/>"
            endPoint = (endX ?? startX, py)
        }
        out += "</g></a>\n"

        for fault in r.faults {
            let fx = x.pixel(Double(fault.t) / 1e6)
            let fy = y.pixel(Double(geometry.offset(at: fault.t) ?? geometry.base ?? 0))
            marks +=
                "<g class=\"mark-fault\" data-ex=\"\(r.id)\"><title>#\(r.id) fault injected by --fault \(HTMLEscaping.escape(ExchangeFacts.clip(fault.rule, 200))): \(HTMLEscaping.escape(ExchangeFacts.clip(fault.detail, 300)))</title>"
            marks +=
                "<path d=\"M\(f(fx)),\(f(fy - 7))L\(f(fx + 6)),\(f(fy))L\(f(fx)),\(f(fy + 7))L\(f(fx - 6)),\(f(fy))Z\"/></g>\n"
        }

        switch r.outcome {
        case .cancelled:
            let (cx, cy) = endPoint
            marks +=
                "<g class=\"mark-cancel\" data-ex=\"\(r.id)\"><title>#\(r.id) cancelled by the client: delivered \(r.bytesDelivered ?? 0) of \(r.bytesSent) bytes \(r.sentWord)</title>"
            marks +=
                "<path d=\"M\(f(cx - 5)),\(f(cy - 5))L\(f(cx + 5)),\(f(cy + 5))M\(f(cx - 5)),\(f(cy + 5))L\(f(cx + 5)),\(f(cy - 5))\"/>"
            if let delivered = r.bytesDelivered, let base = geometry.base, delivered < r.bytesSent {
                let dy = y.pixel(Double(base.addingSaturating(delivered)))
                if abs(dy - cy) > 3 {
                    marks +=
                        "<line class=\"delivered\" x1=\"\(f(cx - 7))\" y1=\"\(f(dy))\" x2=\"\(f(cx + 7))\" y2=\"\(f(dy))\"/>"
                }
            }
            marks += "</g>\n"
        case .failed(let message):
            let (cx, cy) = endPoint
            marks +=
                "<g class=\"mark-error\" data-ex=\"\(r.id)\"><title>#\(r.id) failed: \(HTMLEscaping.escape(ExchangeFacts.clip(message, 300)))</title>"
            marks += "<path d=\"M\(f(cx)),\(f(cy - 10))L\(f(cx + 9)),\(f(cy + 6))L\(f(cx - 9)),\(f(cy + 6))Z\"/>"
            marks += "<text x=\"\(f(cx))\" y=\"\(f(cy + 4.5))\">!</text></g>\n"
        case .complete, .open:
            break
        }
    }

    /// The shaped client's progress (`delivered` events) as a dashed line of class `client`:
    /// from `base` at `start`, then the offset the client had been sent at each event.
    private func renderDeliveries(
        _ r: ExchangeRecord, base: Int64, from start: CaptureTime, colour: String, x: AxisScale, y: AxisScale,
        into out: inout String
    ) {
        guard !r.deliveries.isEmpty else { return }
        var points = [(x.pixel(Double(min(start, r.deliveries[0].t)) / 1e6), y.pixel(Double(base)))]
        for d in r.deliveries {
            points.append((x.pixel(Double(d.t) / 1e6), y.pixel(Double(base.addingSaturating(d.bytes)))))
        }
        out += "<polyline class=\"client \(colour)\" points=\""
        for (i, p) in BarGeometry.thin(points, cap: maxPointsPerBar).enumerated() {
            if i > 0 { out += " " }
            out += f(p.0) + "," + f(p.1)
        }
        out += "\"/>"
    }

    /// A coordinate with one decimal.
    private func f(_ v: Double) -> String { ReportFormat.number(v, decimals: 1) }
}
