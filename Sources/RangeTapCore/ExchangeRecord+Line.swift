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
        if let end { s += " " + Self.milliseconds(end.subtractingSaturating(start)) + " ms" }
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

    /// `String(format: "%.1f", Double(nanoseconds) / 1e6)`, the duration the live log prints,
    /// from the integer: `String(format:)` went through Foundation's formatter for every exchange
    /// (most of the time the live log took, measured in the history of docs/performance.md).
    ///
    /// Rounding the integer half up gives what `%.1f` gives for the `Double` whenever the exact
    /// value is no tie: a tie between two tenths of a millisecond is a whole number of
    /// nanoseconds, and below 2^50 ns (13 days) the `Double` lies within an eighth of a
    /// nanosecond of the exact value. At a tie (and for negative or huge values) the formatter itself answers.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        guard nanoseconds >= 0, nanoseconds < 1 << 50, nanoseconds % 100_000 != 50_000 else {
            return String(format: "%.1f", Double(nanoseconds) / 1e6)
        }
        let tenths = (nanoseconds + 50_000) / 100_000
        return String(tenths / 10) + "." + String(tenths % 10)
    }
}
