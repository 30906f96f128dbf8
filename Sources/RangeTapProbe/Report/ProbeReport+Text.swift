import Foundation
import RangeTapCore

extension ProbeReport {
    /// The checks grouped by area — areas with failures first, failures first within an area —
    /// each with a one-line reason; with `verbose`, the requests and raw response heads under
    /// each check. Ends with the verdicts and the overall result.
    public func text(verbose: Bool = false) -> String {
        var out: [String] = []
        out.append("rangetap probe \(url)")
        let lengthText = length.map { "\($0) bytes" } ?? "length unknown"
        out.append(
            "\(lengthText) · \(Self.protocolText(httpProtocol)) · \(checks.count) checks: \(summary.fail) fail, \(summary.warn) warn, \(summary.info) info, \(summary.pass) pass · \(Int(durationMs.rounded())) ms"
        )
        let idOrder = Dictionary(
            uniqueKeysWithValues: ProbeCheckID.allCases.enumerated().map { (ProbeCheck.ID.check($1), $0) })
        let areaOrder = Dictionary(uniqueKeysWithValues: ProbeArea.allCases.enumerated().map { ($1, $0) })
        let groups = Dictionary(grouping: checks, by: \.area)
        let areas = groups.keys.sorted { a, b in
            let wa = groups[a]!.map(\.result).max()!
            let wb = groups[b]!.map(\.result).max()!
            return wa != wb ? wa > wb : areaOrder[a]! < areaOrder[b]!
        }
        let width = (checks.map(\.id.rawValue.count).max() ?? 10) + 2
        for area in areas {
            out.append("")
            out.append(area.title)
            let sorted = groups[area]!.sorted { a, b in
                a.result != b.result ? a.result > b.result : (idOrder[a.id] ?? 0) < (idOrder[b.id] ?? 0)
            }
            for c in sorted {
                let pad = String(repeating: " ", count: max(1, width - c.id.rawValue.count))
                out.append(
                    "  \(c.result.label.padding(4))  \(c.id)\(pad)\(TerminalText.escapingControls(c.message))  [\(c.rfc)]"
                )
                if verbose { out += Self.evidenceLines(c.evidence) }
            }
        }
        out.append("")
        out.append("verdicts")
        for v in verdicts { out.append("  \(v.ok ? "✓" : "✗") \(v.text)") }
        out.append("")
        switch result {
        case .fail: out.append("result: FAIL (\(summary.fail) check\(summary.fail == 1 ? "" : "s") failed)")
        case .warn: out.append("result: PASS with \(summary.warn) warning\(summary.warn == 1 ? "" : "s")")
        default: out.append("result: PASS")
        }
        return out.joined(separator: "\n")
    }

    /// How the report names the protocol the checks ran over.
    static func protocolText(_ name: String) -> String {
        switch name {
        case "h2": "HTTP/2 (h2 by ALPN)"
        case "h2c": "HTTP/2 (h2c, prior knowledge)"
        case "http/1.1": "HTTP/1.1"
        default: TerminalText.escapingControls(name)
        }
    }

    /// Indented request and response lines of the evidence, control characters the origin
    /// sent written out visibly (``TerminalText``).
    static func evidenceLines(_ evidence: [ProbeEvidence]) -> [String] {
        var out: [String] = []
        let indent = "          "
        for e in evidence {
            out.append("\(indent)— \(e.label)")
            for line in e.request where !HeaderLine(raw: line).isBlank {
                out.append("\(indent)> \(TerminalText.escapingControls(String(HeaderLine(raw: line).content)))")
            }
            for line in e.response {
                let h = HeaderLine(raw: line)
                if h.isBlank { continue }
                out.append(
                    "\(indent)< \(TerminalText.escapingControls(String(h.content)))\(h.terminator == "\n" ? "   [bare LF]" : "")"
                )
            }
            var facts: [String] = []
            if e.status != nil {
                facts.append("\(e.bodyBytes) body bytes read\(e.stoppedEarly ? ", then rangetap hung up" : "")")
            }
            if let version = e.httpVersion { facts.append("HTTP/\(TerminalText.escapingControls(version))") }
            if let sha = e.sha256 { facts.append("SHA-256 \(sha.prefix(16))…") }
            if let reused = e.reusedConnection { facts.append(reused ? "reused connection" : "new connection") }
            if let port = e.localPort, port > 0 { facts.append("local port \(port)") }
            if let error = e.error { facts.append("error: \(TerminalText.escapingControls(error))") }
            facts.append(String(format: "%.1f ms", e.durationMs))
            out.append("\(indent)  " + facts.joined(separator: ", "))
        }
        return out
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
