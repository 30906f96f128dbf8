import RangeTapCore

/// The waterfall with media time on y: time since the capture started on x, and for every
/// exchange mapped to media (``MediaSpan`` with start and end seconds), a box from its request
/// to its end, spanning the media seconds it fetched. One colour per rendition; a cancelled
/// fetch has the usual ✕ at its end. The HTML report shows it instead of the byte-offset lanes
/// when the reader switches the y axis to media time.
///
/// Every box is a `<g class="ex">` with `data-ex` and a `<title>`, like the byte waterfall's.
struct MediaTimelineSVG: Sendable {
    /// The mapped exchanges, in request order.
    let exchanges: [CaptureAnalysis.Exchange]
    /// Renditions in order of first fetch; the index picks the colour class (`c0`…).
    let renditions: [String]
    private let time: (lower: Double, upper: Double)
    private let media: (lower: Double, upper: Double)

    let width = 1320.0
    private let height = 470.0
    private let left = 88.0
    private let right = 28.0
    private let top = 14.0
    private let bottom = 40.0

    /// The media view of `analysis`; nil when no exchange has a media time span.
    init?(_ analysis: CaptureAnalysis) {
        exchanges = analysis.exchanges.filter { $0.media?.start != nil && $0.media?.end != nil }
        guard !exchanges.isEmpty else { return nil }
        var names: [String] = []
        for e in exchanges {
            let name = Self.renditionName(e.media!)
            if !names.contains(name) { names.append(name) }
        }
        renditions = names
        let starts = analysis.exchanges.map { Double($0.record.start) / 1e6 }
        let ends = analysis.exchanges.map { Double($0.record.end ?? $0.record.lastChunkAt ?? $0.record.start) / 1e6 }
        let lo = starts.min() ?? 0
        let hi = max(ends.max() ?? 1, lo + 1)
        time = (lo, hi + (hi - lo) * 0.015)
        let mLo = exchanges.compactMap { $0.media?.start }.min() ?? 0
        let mHi = exchanges.compactMap { $0.media?.end }.max() ?? 1
        media = (min(0, mLo), max(mHi, min(0, mLo) + 1))
    }

    /// The name a span's colour and legend go by: its rendition, or its format.
    static func renditionName(_ m: MediaSpan) -> String { m.rendition ?? m.format }

    /// The colour class of a rendition.
    func colourClass(_ m: MediaSpan) -> String {
        "c\((renditions.firstIndex(of: Self.renditionName(m)) ?? 0) % WaterfallSVG.colourCount)"
    }

    /// The SVG, in a `<section class="media-lane">`.
    func render() -> String {
        let plot = height - top - bottom
        let x = AxisScale(lower: time.lower, upper: time.upper, pixelStart: left, pixelEnd: width - right)
        let y = AxisScale(lower: media.lower, upper: media.upper, pixelStart: top + plot, pixelEnd: top)
        var out = "<section class=\"media-lane\" id=\"media-lane\">\n"
        out +=
            "<svg class=\"waterfall\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" role=\"img\">\n<g class=\"grid\">"
        let xTicks = x.decimalTicks(count: 12)
        let yTicks = y.decimalTicks(count: 8)
        for t in xTicks {
            out +=
                "<line x1=\"\(f(x.pixel(t.value)))\" y1=\"\(f(top))\" x2=\"\(f(x.pixel(t.value)))\" y2=\"\(f(top + plot))\"/>"
        }
        for t in yTicks {
            out +=
                "<line x1=\"\(f(left))\" y1=\"\(f(y.pixel(t.value)))\" x2=\"\(f(width - right))\" y2=\"\(f(y.pixel(t.value)))\"/>"
        }
        out += "</g>\n<g class=\"axis\">"
        out += "<line x1=\"\(f(left))\" y1=\"\(f(top + plot))\" x2=\"\(f(width - right))\" y2=\"\(f(top + plot))\"/>"
        out += "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + plot))\"/>"
        for t in xTicks {
            out += "<text class=\"xt\" x=\"\(f(x.pixel(t.value)))\" y=\"\(f(top + plot + 18))\">\(t.label)</text>"
        }
        for t in yTicks {
            out += "<text class=\"yt\" x=\"\(f(left - 8))\" y=\"\(f(y.pixel(t.value) + 4))\">\(t.label)</text>"
        }
        out +=
            "<text class=\"at\" x=\"\(f((left + width - right) / 2))\" y=\"\(f(height - 4))\">time since capture start (ms)</text>"
        out += "<text class=\"at\" transform=\"translate(14 \(f(top + plot / 2))) rotate(-90)\">media time (s)</text>"
        out += "</g>\n<g class=\"bars\">\n"
        var marks = ""
        for e in exchanges {
            let r = e.record
            let m = e.media!
            let x1 = x.pixel(Double(r.start) / 1e6)
            let x2 = max(x1 + 3, x.pixel(Double(r.end ?? r.lastChunkAt ?? r.start) / 1e6))
            let y1 = y.pixel(m.end!)
            let y2 = max(y1 + 3, y.pixel(m.start!))
            let colour = colourClass(m)
            out +=
                "<a href=\"#ex-\(r.id)\"><g class=\"ex\" data-ex=\"\(r.id)\"><title>#\(r.id) \(HTMLEscaping.escape(TimelineText.mediaCell(m)))\n\(HTMLEscaping.escape(ExchangeFacts.clip(r.url ?? r.target, 200)))</title>"
            out +=
                "<rect class=\"box \(colour)\" x=\"\(f(x1))\" y=\"\(f(y1))\" width=\"\(f(x2 - x1))\" height=\"\(f(y2 - y1))\"/>"
            out +=
                "<line class=\"bar \(colour)\" x1=\"\(f(x1))\" y1=\"\(f(y2))\" x2=\"\(f(x2))\" y2=\"\(f(y1))\"/></g></a>\n"
            if r.outcome == .cancelled {
                marks += "<g class=\"mark-cancel\" data-ex=\"\(r.id)\"><title>#\(r.id) cancelled by the client</title>"
                marks +=
                    "<path d=\"M\(f(x2 - 5)),\(f(y1 - 5))L\(f(x2 + 5)),\(f(y1 + 5))M\(f(x2 - 5)),\(f(y1 + 5))L\(f(x2 + 5)),\(f(y1 - 5))\"/></g>\n"
            }
        }
        out += "</g>\n<g class=\"marks\">\n" + marks + "</g>\n</svg>\n</section>\n"
        return out
    }

    /// A coordinate with one decimal.
    private func f(_ v: Double) -> String { ReportFormat.number(v, decimals: 1) }
}
