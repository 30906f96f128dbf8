import Foundation

extension ShapeEvent {
    /// One line for a person: `link shaped from 0.0 ms: rate=2mbit,latency=80ms,scope=link`
    /// (then ` (trace FILE)` when a trace drove it), or `link shaping off from 40.0 ms`. Control
    /// characters are written out visibly (``TerminalText``).
    public var line: String {
        let at = String(format: "%.1f", Double(t) / 1e6)
        if spec == "off" && trace == nil { return "link shaping off from \(at) ms" }
        return TerminalText.escapingControls(
            "link shaped from \(at) ms: \(spec)" + (trace.map { " (trace \($0))" } ?? ""))
    }
}
