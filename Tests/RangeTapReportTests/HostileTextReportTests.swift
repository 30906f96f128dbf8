import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapReport
import Testing

/// Escape sequences from a client or an upstream never reach the terminal, and URL passwords
/// never reach a report of a capture marked `redacted`.
@Suite struct HostileTextReportTests {
    private func expectNoControls(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bad = text.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
        }
        #expect(
            bad.isEmpty, "control characters reach the terminal: \(bad.map { String($0.value, radix: 16) })",
            sourceLocation: sourceLocation)
    }

    @Test func summaryEscapesControlsAndRedactsURLPasswords() throws {
        let capture = try HostileTextCapture()
        defer { capture.remove() }
        let text = try CaptureSummaryReport(path: capture.path).text
        expectNoControls(text)
        #expect(text.contains("rangetap test\\x1B]0;owned\\x07"), "\(text)")
        #expect(text.contains("GET /a\\x1B[2J.mp4 range=bytes=0-3\\x1B[5m -> 206"), "\(text)")
        #expect(text.contains("ERROR upstream failed: \\x1B[2K\\rforged line"), "\(text)")
        #expect(text.contains("conn 1 ERROR malformed request \\x1B[H\\x1B[2J"), "\(text)")
        #expect(!text.contains("hunter2"), "\(text)")
    }

    @Test func inspectTextEscapesControlsAndRedactsURLPasswords() throws {
        let capture = try HostileTextCapture()
        defer { capture.remove() }
        let analysis = try MediaAnalysis.analyze(path: capture.path)
        for colour in [false, true] {
            var text = TimelineText(colour: colour).render(analysis)
            // rangetap's own colours are the only escape sequences left.
            for sgr in ["\u{1B}[0m", "\u{1B}[1m", "\u{1B}[2m", "\u{1B}[31m", "\u{1B}[32m", "\u{1B}[33m"] {
                text = text.replacingOccurrences(of: sgr, with: "")
            }
            expectNoControls(text)
            #expect(text.contains("/a\\x1B[2J.mp4"), "\(text)")
            #expect(text.contains("http://user:<redacted>@127.0.0.1:8081/a\\x1B[2J.mp4"), "\(text)")
            #expect(!text.contains("hunter2"), "\(text)")
        }
    }

    @Test func harAndHTMLCarryNoURLPassword() throws {
        let capture = try HostileTextCapture()
        defer { capture.remove() }
        let analysis = try MediaAnalysis.analyze(path: capture.path)
        let har = String(decoding: HARExport.render(analysis), as: UTF8.self)
        #expect(!har.contains("hunter2"))
        #expect(har.contains("user:<redacted>@127.0.0.1:8081"))
        let html = HTMLReport.render(analysis)
        #expect(!html.contains("hunter2"))
        #expect(html.contains("user:&lt;redacted&gt;@127.0.0.1:8081"))
        // The --upstream of the header too.
        #expect(har.contains("for http://up:<redacted>@origin.example"))
        #expect(html.contains("upstream http://up:&lt;redacted&gt;@origin.example"))
    }

    @Test func keepSecretsCapturesKeepTheirPasswords() throws {
        let capture = try HostileTextCapture(redacted: false)
        defer { capture.remove() }
        let analysis = try MediaAnalysis.analyze(path: capture.path)
        #expect(analysis.exchanges.first?.record.url == "http://user:hunter2@127.0.0.1:8081/a\u{1B}[2J.mp4")
        // Still escaped for the terminal.
        expectNoControls(try CaptureSummaryReport(path: capture.path).text)
    }
}
