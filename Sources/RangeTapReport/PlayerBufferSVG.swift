import RangeTapCore

/// The player's own account over time, from its CMCD (CTA-5004), drawn above the waterfall on
/// the same time axis: the buffer length each request stated (`bl`) as a line of points at the
/// requests' start, a red mark where it reported starvation (`bs`), a ring where it said it
/// was starting up (`su`). Each point is a `<g class="bl">` with `data-ex` and a `<title>`
/// (the request's CMCD, escaped).
struct PlayerBufferSVG: Sendable {
    /// A request that stated its buffer length or starvation.
    struct Point: Sendable {
        var exchange: Int
        /// Milliseconds since the capture started.
        var at: Double
        /// Buffer length in seconds, when stated.
        var seconds: Double?
        var starved: Bool
        var startup: Bool
        var text: String
    }

    let points: [Point]
    private let time: (lower: Double, upper: Double)
    private let top: Double

    private let width = 1320.0
    private let height = 150.0
    private let left = 88.0
    private let right = 28.0
    private let plotTop = 12.0
    private let bottom = 30.0

    /// The chart for `analysis` on the time axis `time` (the waterfall's); nil when no request
    /// stated a buffer length or starvation.
    init?(_ analysis: CaptureAnalysis, time: (lower: Double, upper: Double)) {
        points = analysis.exchanges.compactMap { e in
            guard let c = e.cmcd, c.bufferLengthMs != nil || c.starved else { return nil }
            return Point(
                exchange: e.record.id, at: Double(e.record.start) / 1e6,
                seconds: c.bufferLengthMs.map { Double($0) / 1000 },
                starved: c.starved, startup: c.startup, text: c.entries.map(\.text).joined(separator: ","))
        }
        guard !points.isEmpty else { return nil }
        self.time = time
        top = max(1, (points.compactMap(\.seconds).max() ?? 1) * 1.1)
    }

    /// The SVG, in a `<section class="player-buffer">`.
    func render() -> String {
        let plot = height - plotTop - bottom
        let x = AxisScale(lower: time.lower, upper: time.upper, pixelStart: left, pixelEnd: width - right)
        let y = AxisScale(lower: 0, upper: top, pixelStart: plotTop + plot, pixelEnd: plotTop)
        var out = "<section class=\"player-buffer\" id=\"player-buffer\">\n"
        out += "<h3>The player's account (CMCD): buffer length stated with each request</h3>\n"
        out +=
            "<svg class=\"waterfall\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" role=\"img\">\n<g class=\"grid\">"
        let yTicks = y.decimalTicks(count: 4)
        for t in yTicks {
            let py = f(y.pixel(t.value))
            out += "<line x1=\"\(f(left))\" y1=\"\(py)\" x2=\"\(f(width - right))\" y2=\"\(py)\"/>"
        }
        out += "</g>\n<g class=\"axis\">"
        out +=
            "<line x1=\"\(f(left))\" y1=\"\(f(plotTop + plot))\" x2=\"\(f(width - right))\" y2=\"\(f(plotTop + plot))\"/>"
        out += "<line x1=\"\(f(left))\" y1=\"\(f(plotTop))\" x2=\"\(f(left))\" y2=\"\(f(plotTop + plot))\"/>"
        for t in yTicks {
            out += "<text class=\"yt\" x=\"\(f(left - 8))\" y=\"\(f(y.pixel(t.value) + 4))\">\(t.label) s</text>"
        }
        out +=
            "<text class=\"at\" transform=\"translate(14 \(f(plotTop + plot / 2))) rotate(-90)\">buffer (bl)</text>"
        out += "</g>\n"
        let line = points.compactMap { p in p.seconds.map { "\(f(x.pixel(p.at))),\(f(y.pixel($0)))" } }
        if line.count > 1 { out += "<polyline class=\"bl-line\" points=\"\(line.joined(separator: " "))\"/>\n" }
        for p in points {
            let px = f(x.pixel(p.at))
            let py = f(y.pixel(p.seconds ?? 0))
            out += "<g class=\"bl\(p.starved ? " starved" : "")\" data-ex=\"\(p.exchange)\">"
            out +=
                "<title>#\(p.exchange): \(p.seconds.map { "buffer \(ReportFormat.number($0, decimals: 1)) s" } ?? "no bl")\(p.starved ? ", starved (bs)" : "")\(p.startup ? ", startup (su)" : "") · \(HTMLEscaping.escape(p.text))</title>"
            if p.starved {
                out += "<path class=\"bs\" d=\"M\(px),\(f(plotTop + plot))l-5,-9h10z\"/>"
            }
            out += "<circle cx=\"\(px)\" cy=\"\(py)\" r=\"\(p.startup ? 4 : 2.5)\"\(p.startup ? " class=\"su\"" : "")/>"
            out += "</g>\n"
        }
        out += "</svg>\n</section>\n"
        return out
    }

    private func f(_ v: Double) -> String { ReportFormat.number(v, decimals: 1) }
}
