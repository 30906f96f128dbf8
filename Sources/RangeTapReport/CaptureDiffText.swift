import Foundation
import RangeTapCore

/// The text form of a ``CaptureDiff``: `no differences`, or every figure of A and B with the
/// change, then the resources and finding codes that differ (docs/diff.md).
public enum CaptureDiffText {
    /// The report, ending in a newline. Paths and messages from the captures have their
    /// control characters escaped.
    public static func render(_ diff: CaptureDiff) -> String {
        var out = "A: \(TerminalText.escapingControls(diff.a))\nB: \(TerminalText.escapingControls(diff.b))\n"
        if diff.identical {
            return out + "no differences\n"
        }
        let rows = diff.metrics.map { m in
            [m.name, figure(m.a, unit: m.unit), figure(m.b, unit: m.unit), change(m), m.differs ? "*" : ""]
        }
        out += table([["", "A", "B", "change", ""]] + rows)
        if !diff.resources.isEmpty {
            out += "\nresources (matched by URL path; hosts and ports are not compared)\n"
            out += table(
                [["  path", "fetched A", "fetched B", "change", "requests A", "requests B"]]
                    + diff.resources.map { r in
                        [
                            "  " + TerminalText.escapingControls(r.path), String(r.bytesFetchedA),
                            String(r.bytesFetchedB),
                            signed(Double(r.bytesFetchedChange), unit: "bytes")
                                + percent(Double(r.bytesFetchedA), Double(r.bytesFetchedChange)),
                            String(r.requestsA), String(r.requestsB),
                        ]
                    })
        }
        if !diff.renditions.isEmpty {
            out +=
                "\nrenditions (the media mapping's segments: count, cancelled, media seconds, bytes delivered, switches to)\n"
            func cells(_ f: RenditionFigures) -> [String] {
                [
                    String(f.segments), String(f.cancelled), String(format: "%.2f s", f.mediaSeconds), String(f.bytes),
                    String(f.switchesTo),
                ]
            }
            out += table(
                [
                    [
                        "  rendition", "seg A", "cxl A", "media A", "bytes A", "sw A", "seg B", "cxl B", "media B",
                        "bytes B", "sw B",
                    ]
                ]
                    + diff.renditions.map {
                        ["  " + TerminalText.escapingControls($0.rendition)] + cells($0.a) + cells($0.b)
                    })
        }
        if !diff.findings.isEmpty {
            out += "\nfindings by code\n"
            out += table([["  code", "A", "B"]] + diff.findings.map { ["  " + $0.code, String($0.a), String($0.b)] })
        }
        if !diff.onlyInA.isEmpty { out += "\nonly in A: " + diff.onlyInA.joined(separator: ", ") + "\n" }
        if !diff.onlyInB.isEmpty {
            out += (diff.onlyInA.isEmpty ? "\n" : "") + "only in B: " + diff.onlyInB.joined(separator: ", ") + "\n"
        }
        return out
    }

    /// A figure in its unit: integers for counts and bytes, 3 decimals for ratios, 1 for ms.
    static func figure(_ value: Double?, unit: String) -> String {
        guard let value else { return "-" }
        switch unit {
        case "ratio": return String(format: "%.3f", value)
        case "ms": return String(format: "%.1f ms", value)
        default: return String(Int64(value))
        }
    }

    /// The change with its sign and percentage, `0` when equal, `-` when a side has no figure.
    static func change(_ m: CaptureDiff.Metric) -> String {
        guard let change = m.change else { return "-" }
        return signed(change, unit: m.unit) + percent(m.a ?? 0, change)
    }

    private static func signed(_ value: Double, unit: String) -> String {
        if value == 0 { return "0" }
        let text = figure(abs(value), unit: unit)
        return (value < 0 ? "-" : "+") + text
    }

    private static func percent(_ base: Double, _ change: Double) -> String {
        guard base != 0, change != 0 else { return "" }
        return String(format: " (%+.1f%%)", change / base * 100)
    }

    /// Left-aligned first column, right-aligned others, two spaces apart.
    private static func table(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                return c == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }
}
