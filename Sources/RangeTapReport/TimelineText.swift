import Foundation
import RangeTapCore

/// The human-readable `inspect` report: a timeline row per exchange, the findings, a summary.
/// HTTP/2 streams are grouped under a line naming their connection (`conn 3 · HTTP/2 · 5
/// streams`), each row marked with its stream id (`s5`) in the `conn` column; captures with no
/// HTTP/2 client connection print as they always did.
///
/// Player lab captures (`record --fault`, `--shape`): a row whose exchange a fault was injected into says `FAULT` and
/// the rules, every finding about it says `[injected: RULE]`, the summary counts injected findings apart, and the
/// heading says how the link was shaped. Text from the capture is printed through ``TerminalText`` so control bytes an
/// upstream or client sent (ESC sequences, BEL, CR) show as `\x1B` and do not act on the terminal.
public struct TimelineText: Sendable {
    /// Use ANSI colours.
    public var colour: Bool

    /// A renderer; `colour` for a terminal.
    public init(colour: Bool) { self.colour = colour }

    /// Column widths; negative means left-aligned.
    private static let columns: [(String, Int)] = [
        ("#", 4), ("start ms", 9), ("conn", 4), ("re", -3), ("method", -6), ("path", -24), ("range", -16), ("st", -3),
        ("content-range", -26), ("delivered/expected", 19), ("chunks", 6), ("ms", 8),
    ]

    /// Index of the `conn` column, which shows `s5` for HTTP/2 stream 5.
    private static let connColumn = 2
    /// The `host` column, shown before `path` when a capture has more than one host.
    private static let hostColumn = ("host", -22)
    /// Columns whose text is never cut, however long: a range or Content-Range cut short would
    /// state a different range. A long one pushes the rest of its row to the right.
    private static let uncut: Set<String> = ["range", "content-range", "media", "cmcd"]

    /// The `media` column (segment, rendition, media time), last, shown when any exchange of
    /// the capture was mapped to media; never cut, as the outcome after it is free anyway.
    private static let mediaColumn = ("media", -30)

    /// The `cmcd` column (the player's own account: `ot=v br=3200 bl=21300 mtp=48100 bs su`, `!`
    /// when malformed), after `media`, shown when any request of the capture carried CMCD.
    private static let cmcdColumn = ("cmcd", -30)

    /// Which optional columns a report shows.
    struct Layout: Sendable {
        /// The `host` column: the capture has more than one host.
        var hosts = false
        /// The `media` column: some exchange was mapped to media.
        var media = false
        /// The `cmcd` column: some request carried CMCD.
        var cmcd = false
    }

    /// The columns of a report with `layout`'s optional ones.
    private static func columns(_ layout: Layout) -> [(String, Int)] {
        var c = columns
        if layout.hosts { c.insert(hostColumn, at: c.firstIndex { $0.0 == "path" } ?? c.count) }
        if layout.media { c.append(mediaColumn) }
        if layout.cmcd { c.append(cmcdColumn) }
        return c
    }

    /// Column headings of the timeline.
    public var heading: String { heading(connWidth: 0, layout: Layout()) }

    private func heading(connWidth: Int, layout: Layout) -> String {
        paint(Self.line(Self.columns(layout).map(\.0) + ["outcome"], connWidth: connWidth, layout: layout), .bold)
    }

    /// One timeline row. An HTTP/2 exchange shows its stream id (`s5`) in the `conn` column,
    /// widened for this row if the id needs it.
    public func row(_ e: CaptureAnalysis.Exchange) -> String {
        row(e, connWidth: Self.streamCellWidth(e.record), layout: Layout())
    }

    /// Characters the `conn` cell of an HTTP/2 stream needs (`s2147483647`); 0 for HTTP/1.x,
    /// whose cell is the connection id at the usual width.
    private static func streamCellWidth(_ r: ExchangeRecord) -> Int {
        r.stream == nil ? 0 : connCell(r).count
    }

    /// The `conn` cell: the connection id, or `s` and the stream id for an HTTP/2 stream.
    private static func connCell(_ r: ExchangeRecord) -> String {
        r.stream.map { "s\($0)" } ?? String(r.connection)
    }

    /// The line above an HTTP/2 connection's streams: `conn 3 · HTTP/2 · 5 streams`, then the
    /// upstream versions its streams were fetched with (`upstream HTTP/1.1`), when known.
    /// `streams` is nil while the count is not known yet (`inspect --follow`).
    public func connectionHeader(connection: Int, streams: Int?, upstreamVersions: [String] = []) -> String {
        var s = "conn \(connection) · HTTP/2"
        if let streams { s += " · \(streams) stream\(streams == 1 ? "" : "s")" }
        if !upstreamVersions.isEmpty {
            s += " · upstream " + upstreamVersions.map { "HTTP/\(Self.safe($0))" }.joined(separator: " and ")
        }
        return paint(s, .bold)
    }

    private func row(_ e: CaptureAnalysis.Exchange, connWidth: Int, layout: Layout) -> String {
        let r = e.record
        let reused = r.upstreamReused == true ? "yes" : r.upstreamReused == false ? "no" : "-"
        let delivered = r.bytesToClient
        var outcome: String
        switch r.outcome {
        case .complete: outcome = paint("ok", .green)
        case .open: outcome = paint("open", .yellow)
        case .cancelled: outcome = paint("CANCELLED at byte \(delivered) (\(r.sentWord) \(r.bytesSent))", .yellow)
        case .failed(let m): outcome = paint("ERROR \(Self.safe(m))", .red)
        }
        if r.pausedNs > 0 {
            outcome += " " + paint(String(format: "(paused %.1f ms: slow client)", Double(r.pausedNs) / 1e6), .yellow)
        }
        if let map = r.mapRule {
            outcome += " " + paint("MAPPED " + Self.safe(map), .cyan)
        }
        if let rules = r.faultRules?.filter({ $0 != r.mapRule }), !rules.isEmpty {
            outcome += " " + paint("FAULT " + Self.safe(rules.joined(separator: " ; ")), .cyan)
        }
        let notable = e.findings.filter { $0.severity > .info }
        if let worst = notable.map(\.severity).max() {
            // Findings the user injected are not the origin's: not painted as its errors.
            let style: Style = notable.allSatisfy(\.injected) ? .cyan : worst == .error ? .red : .yellow
            outcome += " " + paint("[\(notable.map(\.code).joined(separator: ","))]", style)
        }
        var cells = [
            "#\(r.id)", String(format: "%.1f", Double(r.start) / 1e6), Self.connCell(r), reused, Self.safe(r.method),
            Self.safe(r.method == "CONNECT" ? r.target : r.path), Self.safe(r.requestRange ?? "-"),
            r.status.map(String.init) ?? "---",
            Self.safe(r.contentRange ?? "-"), "\(delivered)/\(e.expectedBytes.map(String.init) ?? "?")",
            String(r.chunkCount),
            r.durationMs.map { String(format: "%.1f", $0) } ?? "-", outcome,
        ]
        if layout.hosts { cells.insert(Self.safe(Self.host(r)), at: 5) }
        if layout.media { cells.insert(e.media.map { Self.safe(Self.mediaCell($0)) } ?? "-", at: cells.count - 1) }
        if layout.cmcd { cells.insert(e.cmcd.map { Self.safe($0.cell) } ?? "-", at: cells.count - 1) }
        return Self.line(cells, connWidth: connWidth, layout: layout)
    }

    /// The host (and port, when not the scheme's) an exchange went to, or `-`.
    static func host(_ r: ExchangeRecord) -> String {
        // A tunnel's target names the port (443 for nearly all): the same host as its https:// exchanges.
        if r.method == "CONNECT" { return r.target.hasSuffix(":443") ? String(r.target.dropLast(4)) : r.target }
        guard let origin = r.origin, let end = origin.range(of: "://") else { return "-" }
        let authority = origin[end.upperBound...]
        let scheme = origin[..<end.lowerBound].lowercased()
        for (s, port) in [("http", ":80"), ("https", ":443")] where scheme == s && authority.hasSuffix(port) {
            return String(authority.dropLast(port.count))
        }
        return String(authority)
    }

    /// A line for an exchange still in flight at capture time `now` (`inspect --follow`):
    /// `  … #12 GET /seg_14.m4s bytes=0- 206 received 312000 B in 3.4 s (730 kB/s)`, or
    /// `waiting for the response` before its head came.
    public func inFlight(_ r: ExchangeRecord, now: CaptureTime) -> String {
        let elapsed = Double(max(0, now - r.start)) / 1e9
        var s =
            "  … #\(r.id) \(Self.safe(r.method)) \(Self.safe(ExchangeFacts.clip(r.method == "CONNECT" ? r.target : r.path, 60)))"
        if let range = r.requestRange { s += " " + Self.safe(range) }
        if let status = r.status {
            s += " \(status)"
            s += String(format: " received %lld B in %.1f s", r.bytesReceived, elapsed)
            if let first = r.firstChunkAt, now > first, r.bytesReceived > 0 {
                let rate = Double(r.bytesReceived) / (Double(now - first) / 1e9)
                s +=
                    rate >= 1e6
                    ? String(format: " (%.1f MB/s)", rate / 1e6) : String(format: " (%.0f kB/s)", rate / 1e3)
            }
            if r.pausedSince != nil { s += " " + paint("paused: slow client", .yellow) }
        } else {
            s += String(format: " waiting for the response, %.1f s", elapsed)
        }
        return paint(s, .dim)
    }

    /// The `media` cell: `seg 14 28.00-30.00s 1280x720 2.1 Mb/s`, `init 1280x720 …`,
    /// `index (moov at end)`, `mp4 12.40-16.80s`, `playlist 1280x720 …`.
    public static func mediaCell(_ m: MediaSpan) -> String {
        var parts: [String] = []
        switch m.kind {
        case .manifest: parts.append(m.format == "dash" ? "mpd" : "playlist")
        case .initialization: parts.append("init")
        case .index: parts.append("index")
        case .part: parts.append("part" + (m.sequence.map { " \($0)" } ?? ""))
        case .segment: parts.append(m.format == "mp4" ? "mp4" : "seg" + (m.sequence.map { " \($0)" } ?? ""))
        }
        if let start = m.start, let end = m.end { parts.append(String(format: "%.2f-%.2fs", start, end)) }
        if let rendition = m.rendition { parts.append(rendition) }
        if let note = m.note { parts.append("(\(note))") }
        return parts.joined(separator: " ")
    }

    /// Whether a report of these exchanges shows the `host` column: more than one host.
    static func showsHosts(_ exchanges: [CaptureAnalysis.Exchange]) -> Bool {
        guard let first = exchanges.first.map({ host($0.record) }) else { return false }
        return exchanges.contains { host($0.record) != first }
    }

    /// Cells padded (or clipped) to the column widths; the last cell is free. `connWidth`
    /// widens the `conn` column (for long stream ids).
    private static func line(_ cells: [String], connWidth: Int, layout: Layout) -> String {
        let columns = columns(layout)
        var out: [String] = []
        for (i, cell) in cells.enumerated() {
            guard i < columns.count else {
                out.append(cell)
                continue
            }
            let width = i == connColumn ? max(abs(columns[i].1), connWidth) : abs(columns[i].1)
            let text = uncut.contains(columns[i].0) ? cell : clip(cell, width)
            let pad = String(repeating: " ", count: max(0, width - text.count))
            out.append(columns[i].1 < 0 ? text + pad : pad + text)
        }
        return out.joined(separator: " ")
    }

    /// One finding, with its evidence indented below.
    public func finding(_ f: Finding) -> String {
        let colourFor: Style = f.severity == .error ? .red : f.severity == .warn ? .yellow : .dim
        var s = paint(String(format: "%-5@", f.severity.rawValue.uppercased() as NSString), colourFor)
        s += " " + (f.exchange.map { "#\($0) " } ?? "") + paint(f.code, .bold)
        if let rules = f.rules {
            s += " " + paint("[injected: " + Self.safe(rules.joined(separator: " ; ")) + "]", .cyan)
        }
        s += ": " + Self.safe(f.message)
        for line in f.evidence where !line.isEmpty {
            s += "\n        " + paint(Self.visible(line), .dim)
        }
        return s
    }

    /// The whole report.
    public func render(_ a: CaptureAnalysis) -> String {
        var out =
            paint("capture", .bold) + Self.safe(" started \(a.header.startedAt) by \(a.header.tool)")
            + (a.header.bodies ? "" : " (no bodies)") + (a.header.hashes ? "" : " (no hashes)") + "\n"
        for shape in a.shapes { out += shaping(shape) + "\n" }
        out += "\n"
        // Every row as wide as the longest stream id needs (4 characters without HTTP/2).
        let connWidth = a.exchanges.reduce(0) { max($0, Self.streamCellWidth($1.record)) }
        let layout = Layout(
            hosts: Self.showsHosts(a.exchanges), media: a.exchanges.contains { $0.media != nil },
            cmcd: a.exchanges.contains { $0.cmcd != nil })
        out += heading(connWidth: connWidth, layout: layout) + "\n"
        for item in ExchangeRow.rows(a.exchanges) {
            switch item {
            case .exchange(let e):
                out += row(e, connWidth: connWidth, layout: layout) + "\n"
            case .connection(let id, let streams, let upstream):
                out += connectionHeader(connection: id, streams: streams.count, upstreamVersions: upstream) + "\n"
                for s in streams { out += row(s, connWidth: connWidth, layout: layout) + "\n" }
            }
        }
        let findings = a.allFindings.enumerated().sorted { l, r in
            l.element.severity != r.element.severity ? l.element.severity > r.element.severity : l.offset < r.offset
        }.map(\.element)
        let injected = findings.filter(\.injected).count
        out +=
            "\n" + paint("findings", .bold)
            + " (\(findings.count)\(injected > 0 ? ", \(injected) of them injected by --fault or --map rules" : ""))\n"
        for f in findings { out += finding(f) + "\n" }
        out += "\n" + summary(a)
        return out
    }

    /// The line saying how the client's link was shaped from a moment on:
    /// `link shaped from 0.0 ms: rate=2mbit,latency=80ms,scope=link`, or `… shaping off`.
    public func shaping(_ shape: ShapeEvent) -> String { paint(shape.line, .cyan) }

    /// The summary block.
    public func summary(_ a: CaptureAnalysis) -> String {
        let s = a.summary
        var out = paint("summary", .bold) + "\n"
        out +=
            "  \(s.requests) requests on \(s.connections) connections (at most \(s.maxRequestsPerConnection) on one)\n"
        let http2 = a.connections.filter(\.isHTTP2)
        if !http2.isEmpty {
            let streams = http2.map(\.streams).reduce(0, +)
            out +=
                "  \(http2.count) HTTP/2 connection\(http2.count == 1 ? "" : "s") carried \(streams) stream\(streams == 1 ? "" : "s")\n"
        }
        out +=
            "  \(s.bytesFetched) bytes fetched, \(s.uniqueBytes) unique"
            + (s.uniqueBytes > 0
                ? String(format: " (redundancy %.2fx)", Double(s.bytesFetched) / Double(s.uniqueBytes)) : "") + "\n"
        out += "  \(s.cancels) cancelled, \(s.seeks) seeks, \(s.errors) errors\n"
        out +=
            "  findings: \(s.findings[.error] ?? 0) error, \(s.findings[.warn] ?? 0) warn, \(s.findings[.info] ?? 0) info\n"
        if s.injectedCount > 0 {
            let faulted = a.exchanges.filter(\.record.injected).count
            out +=
                "  injected by --fault or --map rules into \(faulted) exchange\(faulted == 1 ? "" : "s"), not counted above: \(s.injectedFindings[.error] ?? 0) error, \(s.injectedFindings[.warn] ?? 0) warn, \(s.injectedFindings[.info] ?? 0) info\n"
        }
        for r in a.resources {
            out +=
                "  \(Self.safe(r.url)): \(r.requests) requests, length \(r.length.map(String.init) ?? "?"), \(r.bytesFetched) fetched, \(r.uniqueBytes) unique"
                + String(format: ", redundancy %.2fx", r.redundancy) + "\n"
        }
        if a.truncatedTail {
            out += paint("  the last event is incomplete: the capture was cut off or is still being written\n", .yellow)
        }
        return out
    }

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    private func paint(_ s: String, _ style: Style) -> String {
        colour ? "\u{1B}[\(style.rawValue)m\(s)\u{1B}[0m" : s
    }

    static func clip(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(width - 1)) + "…"
    }

    /// A raw header line made printable: terminators shown as \r \n, control bytes as \xNN.
    static func visible(_ raw: String) -> String { TerminalText.escapingControls(raw) }

    /// Capture text made safe for the terminal (``TerminalText``).
    private static func safe(_ s: String) -> String { TerminalText.escapingControls(s) }
}
