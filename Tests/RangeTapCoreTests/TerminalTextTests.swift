import RangeTapCore
import Testing

@Suite("TerminalText")
struct TerminalTextTests {
    @Test func escapeSequencesAndControlsAreShownNotSent() {
        #expect(TerminalText.escapingControls("a\u{1B}[2Jb") == "a\\x1B[2Jb")
        #expect(TerminalText.escapingControls("\u{1B}]0;owned\u{07}") == "\\x1B]0;owned\\x07")
        #expect(TerminalText.escapingControls("x\r\ny") == "x\\r\\ny")
        #expect(TerminalText.escapingControls("bs\u{08}del\u{7F}nul\u{00}") == "bs\\x08del\\x7Fnul\\x00")
        // C1 controls: U+009B is an 8-bit CSI to many terminals.
        #expect(TerminalText.escapingControls("c1\u{9B}31m") == "c1\\x9B31m")
    }

    @Test func tabAndPrintableTextAreKept() {
        let text = "GET /a b.mp4\tbytes=0-  é ünïcode → 🎬"
        #expect(TerminalText.escapingControls(text) == text)
        #expect(TerminalText.escapingControls("") == "")
    }
}
