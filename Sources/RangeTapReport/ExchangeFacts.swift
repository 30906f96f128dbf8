import RangeTapCore

/// What the report says about one exchange, as plain (unescaped) text: the same words in the
/// waterfall's hover text and in the exchange table.
struct ExchangeFacts: Sendable {
    /// The exchange.
    let exchange: CaptureAnalysis.Exchange

    init(_ exchange: CaptureAnalysis.Exchange) { self.exchange = exchange }

    private var record: ExchangeRecord { exchange.record }

    /// `complete`, `cancelled`, `failed` or `open`: a CSS class and a short word.
    var outcomeKind: String {
        switch record.outcome {
        case .complete: "complete"
        case .cancelled: "cancelled"
        case .failed: "failed"
        case .open: "open"
        }
    }

    /// How it ended, with the byte counts that matter.
    var outcome: String {
        switch record.outcome {
        case .complete: "complete"
        case .open: "open (capture ended first)"
        case .cancelled: "cancelled: delivered \(record.bytesDelivered ?? 0) of \(record.bytesSent) \(record.sentWord)"
        case .failed(let message): "error: \(message)"
        }
    }

    /// The request path (the authority for CONNECT).
    var path: String { record.method == "CONNECT" ? record.target : record.path }

    /// The Range asked, or `-`.
    var range: String { record.requestRange ?? "-" }

    /// The final status, or `---`.
    var status: String { record.status.map(String.init) ?? "---" }

    /// The Content-Range answered, or `-`.
    var contentRange: String { record.contentRange ?? "-" }

    /// `yes`, `no` or `-` for the upstream connection's reuse.
    var reused: String { record.upstreamReused == true ? "yes" : record.upstreamReused == false ? "no" : "-" }

    /// Duration in ms, or `-` while open.
    var duration: String { record.durationMs.map { ReportFormat.number($0, decimals: 1, keepZeros: true) } ?? "-" }

    /// Start, ms since the capture began.
    var start: String { ReportFormat.milliseconds(record.start) }

    /// The lines of a tooltip (escape each; join with newlines).
    var tooltipLines: [String] {
        var lines = ["#\(record.id) \(record.method) \(Self.clip(path, 160))"]
        lines.append("Range: \(range) → \(status), Content-Range: \(contentRange)")
        lines.append(
            "\(record.bytesSent) bytes \(record.sentWord), \(record.bytesToClient) delivered, \(record.chunkCount) chunks, \(duration) ms from \(start) ms; conn \(record.connection)\(record.stream.map { " stream \($0) (HTTP/2)" } ?? ""), upstream reused: \(reused)"
        )
        lines.append(Self.clip(outcome, 240))
        for fault in record.faults {
            lines.append(
                Self.clip(
                    fault.action == "map"
                        ? "answered by --map \(fault.rule): \(fault.detail)"
                        : "fault injected by --fault \(fault.rule): \(fault.detail)", 240))
        }
        if let last = record.deliveries.last {
            lines.append(
                "the shaped client had been sent \(last.bytes) bytes by \(ReportFormat.milliseconds(last.t)) ms")
        }
        if !exchange.findings.isEmpty {
            lines.append(
                "findings: " + exchange.findings.map(\.code).joined(separator: ", ")
                    + (exchange.findings.contains(where: \.injected) ? " (injected)" : ""))
        }
        return lines
    }

    /// `s` cut to `n` characters with an ellipsis.
    static func clip(_ s: String, _ n: Int) -> String {
        s.count <= n ? s : String(s.prefix(n - 1)) + "…"
    }
}
