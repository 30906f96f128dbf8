@testable import RangeTapProbe
import Testing

/// `probe --evidence` prints the origin's raw head: escape sequences in it must not reach the terminal.
@Suite struct ProbeTextSafetyTests {
    @Test func evidenceLinesEscapeControlCharacters() {
        let evidence = ProbeEvidence(
            label: "bytes=0-0", request: ["GET /a HTTP/1.1\r\n", "\r\n"],
            response: ["HTTP/1.1 206 Partial Content\r\n", "X-Evil: \u{1B}]0;owned\u{07}\u{1B}[2J\r\n", "\r\n"],
            status: 206, bodyBytes: 1, stoppedEarly: false, sha256: nil, reusedConnection: nil, localPort: nil,
            error: "reset \u{1B}[31m", durationMs: 1)
        let text = ProbeReport.evidenceLines([evidence]).joined(separator: "\n")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(text)")
        #expect(text.contains("< X-Evil: \\x1B]0;owned\\x07\\x1B[2J"), "\(text)")
        #expect(text.contains("error: reset \\x1B[31m"), "\(text)")
    }
}
