/// The plain-text summary of a capture: one line per exchange, then totals. A player lab
/// capture also says how the link was shaped, and which exchanges had faults injected (`FAULT`
/// and the rules after the line).
public struct CaptureSummaryReport: Sendable {
    /// The header of the capture.
    public let header: CaptureHeader
    /// Exchanges in request order.
    public let exchanges: [ExchangeRecord]
    /// Errors not tied to an exchange.
    public let connectionErrors: [ErrorEvent]
    /// Client connections.
    public let connections: Int
    /// Whether the capture ended in an incomplete line (writer killed or still writing).
    public let truncatedTail: Bool
    /// The shaping of the client's link at the start and at each change (`record --shape`).
    public let shapes: [ShapeEvent]

    /// The capture's CONNECT tunnels.
    public let tunnels: [TunnelEvent]

    /// Reads the capture at `path`.
    public init(path: String) throws {
        let reader = try CaptureReader(path: path)
        var log = ExchangeLog(keepChunks: false, redactsURLPasswords: reader.header.redacted)
        try reader.forEachEvent { log.apply($0) }
        header = reader.header
        exchanges = log.records
        connectionErrors = log.connectionErrors
        connections = log.connections
        truncatedTail = reader.truncatedTail
        shapes = log.shapes
        tunnels = log.tunnels
    }

    /// The totals, as `record`'s stop line counts them (``CaptureTotals``).
    public var totals: CaptureTotals {
        var t = CaptureTotals()
        t.connections = connections
        let tunnelOf = Dictionary(tunnels.map { ($0.exchange, $0) }, uniquingKeysWith: { a, _ in a })
        for r in exchanges { t.add(r, tunnel: tunnelOf[r.id]) }
        t.errors += connectionErrors.count
        return t
    }

    /// The report text.
    public var text: String {
        var out =
            TerminalText.escapingControls("capture started \(header.startedAt) by \(header.tool)")
            + (header.bodies ? "" : " (no bodies)") + (header.hashes ? "" : " (no hashes)") + "\n"
        for shape in shapes { out += shape.line + "\n" }
        for r in exchanges {
            out += r.summaryLine
            if let map = r.mapRule { out += " MAPPED " + TerminalText.escapingControls(map) }
            if let rules = r.faultRules?.filter({ $0 != r.mapRule }), !rules.isEmpty {
                out += " FAULT " + TerminalText.escapingControls(rules.joined(separator: " ; "))
            }
            out += "\n"
        }
        for e in connectionErrors {
            out += "conn \(e.connection.map(String.init) ?? "?") ERROR \(TerminalText.escapingControls(e.message))\n"
        }
        out += totals.line
        let faulted = exchanges.filter(\.injected).count
        if faulted > 0 { out += ", \(faulted) with faults injected by --fault or --map rules" }
        if truncatedTail { out += " (last event incomplete: capture cut off or still being written)" }
        return out + "\n"
    }
}
