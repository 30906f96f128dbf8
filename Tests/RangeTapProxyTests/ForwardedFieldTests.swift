@testable import RangeTapProxy
import RangeTapCore
import Testing

/// The response head's framing reads `Transfer-Encoding` and `Content-Length` by comparing each
/// line's first bytes; it must find what reading every line's name after the repair found, on
/// random lines (spaces and tabs before colons, folds, case, bare CR and LF, non-ASCII), and
/// hand back the same repaired line.
@Suite("Forwarded field lookup")
struct ForwardedFieldTests {
    @Test func findsWhatTheRepairedNameFinds() {
        var generator = SeededGenerator(seed: 0xF1E1D)
        let names = [
            "Transfer-Encoding", "transfer-encoding", "TRANSFER-ENCODING", "Content-Length", "content-length",
            "Content-Lengthx", "Transfer-Encodin", "X", "",
        ]
        let middles = [":", " :", "\t:", "  \t :", " ", "", " x:", ":\u{301}", "\u{301}:", "é:"]
        let values = [" chunked", "chunked", " 5 ", "", "\r", " a\rb", " é"]
        let endings = ["\r\n", "\n", "", "\r\r\n"]
        var lines = [" Transfer-Encoding: chunked\r\n", "\tContent-Length: 1\r\n", "Transfer-Encoding\r\n"]
        for _ in 0..<20_000 {
            lines.append([names, middles, values, endings].map { $0.randomElement(using: &generator)! }.joined())
        }
        for raw in lines {
            let line = HeaderLine(raw: raw)
            for name in ["transfer-encoding", "content-length"] {
                let repaired = line.removingSpaceBeforeColon()
                let reference =
                    repaired.name.map { HeaderByte.equalsIgnoringASCIICase($0.utf8, name.utf8) } == true
                    ? repaired : nil
                #expect(
                    ExchangeStateMachine.forwardedField(line, named: name) == reference,
                    Comment(rawValue: String(reflecting: raw)))
            }
        }
    }
}
