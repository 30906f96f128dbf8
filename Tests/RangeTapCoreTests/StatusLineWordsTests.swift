import Testing
@testable import RangeTapCore

/// `StatusLine` reads an ASCII line byte by byte; it must split it exactly as the character split
/// it replaced (`split(separator: " ", maxSplits: 2)`), which still reads every other line.
@Suite("StatusLine words")
struct StatusLineWordsTests {
    @Test func asciiWordsAreTheCharacterSplit() {
        var generator = SeededGenerator(seed: 0x57A7)
        let pieces = [
            " ", " ", "  ", "HTTP/", "HTTP/1.1", "HTTP/2", "http/", "200", "206", "1xx", "-1", "+200", "+", "-", "0",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "OK", "Partial Content", "\t", "\r",
            "\n", "\r\n", "x",
        ]
        var lines = [
            "", " ", "   ", "HTTP/1.1", "HTTP/1.1 200", "HTTP/1.1 200 ", "HTTP/1.1 200   ", "HTTP/1.1  200 OK",
            " HTTP/1.1 200 OK", "HTTP/1.1 200  OK  x", "a  b  c  d", " a ",
        ]
        for _ in 0..<20_000 {
            lines.append(
                (0..<Int.random(in: 0...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined())
        }
        for text in lines {
            let content = Substring(text)
            let ascii = StatusLine.asciiWords(content)
            #expect(ascii == StatusLine.characterWords(content), Comment(rawValue: String(reflecting: text)))
            let line = StatusLine(HeaderLine(raw: text + "\r\n"))
            let reference = StatusLineWordsTests.reference(text)
            #expect(
                line?.version == reference?.0 && line?.status == reference?.1 && line?.reason == reference?.2,
                Comment(rawValue: String(reflecting: text)))
        }
    }

    @Test func decimalsParseAsInt() {
        var generator = SeededGenerator(seed: 0xDEC)
        var texts = [
            "", "+", "-", "0", "-0", "+0", "00200", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "1 ", " 1", "1a", "++1", "+-1",
        ]
        let digits = Array("0123456789+- x")
        for _ in 0..<20_000 {
            texts.append(
                String(
                    (0..<Int.random(in: 0...21, using: &generator)).map { _ in digits.randomElement(using: &generator)!
                    }))
        }
        for text in texts {
            #expect(StatusLine.decimal(Substring(text).utf8) == Int(text), Comment(rawValue: String(reflecting: text)))
        }
    }

    @Test func otherLinesKeepTheCharacterSplit() {
        // A combining mark after a space makes one character with it: no split there.
        for text in ["HTTP/1.1 200 \u{301}x", "HTTP/1.1 \u{301}200 OK", "HTTP/1.1 206 Partiél", "HTTP/1.1 200 ÿ"] {
            #expect(StatusLine.asciiWords(Substring(text)) == nil)
        }
        #expect(StatusLine(HeaderLine(raw: "HTTP/1.1 \u{301}200 OK\r\n")) == nil)
        #expect(StatusLine(HeaderLine(raw: "HTTP/1.1 206 Partiél\r\n"))?.reason == "Partiél")
    }

    /// The old reading, whole.
    static func reference(_ text: String) -> (Substring, Int, Substring)? {
        let parts = HeaderLine(raw: text + "\r\n").content.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else { return nil }
        return (parts[0], status, parts.count > 2 ? parts[2] : "")
    }
}
