import Foundation
import RangeTapCore

/// Captures written line by line for analysis tests: a version-1 header (no bodies), one client
/// connection opened, then the given event lines.
public enum CaptureLines {
    /// The header line every such capture starts with.
    public static let header =
        #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-29T10:00:00.000Z","bodies":false,"redacted":true,"listen":"127.0.0.1:8080"}"#

    /// Writes `lines` after the header and connection 1's `conn.open` into a temporary capture,
    /// analyses it, and removes it.
    public static func analyze(_ lines: [String]) throws -> CaptureAnalysis {
        let path = Paths.temporaryRoot + "/rangetap-lines-" + UUID().uuidString + ".rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = ([header, #"{"type":"conn.open","t":1,"conn":1,"peer":"127.0.0.1:50000"}"#] + lines)
            .map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        return try CaptureAnalysis.analyze(path: path)
    }
}
