import Foundation

extension ExchangeRecord {
    /// One line for a person: `#3 GET /a.mp4 range=bytes=0- -> 206 [bytes 0-999/1000] 1000 B 2.1 ms CANCELLED …`;
    /// an HTTP/2 stream says so after the path (`h2 s5`).
    /// The live log while recording and `rangetap summary` both print this. Control characters
    /// from the client or the upstream are written out visibly (``TerminalText``).
    public var summaryLine: String { TerminalText.escapingControls(rawSummaryLine) }

    private var rawSummaryLine: String {
        var s = "#\(id) \(method) \(method == "CONNECT" ? target : path)"
        if let stream { s += " h2 s\(stream)" }
        if let range = requestRange { s += " range=\(range)" }
        s += " -> \(status.map(String.init) ?? "---")"
        if let cr = contentRange { s += " [\(cr)]" }
        s += " \(bytesReceived) B"
        if let ms = durationMs { s += String(format: " %.1f ms", ms) }
        if upstreamReused == true { s += " reused" }
        switch outcome {
        case .cancelled:
            s += " CANCELLED delivered=\(bytesDelivered ?? 0)"
            if let sb = sendBuffer { s += " (client sndbuf \(sb))" }
        case .failed(let message): s += " ERROR \(message)"
        case .open: s += " (open)"
        case .complete: break
        }
        return s
    }
}
