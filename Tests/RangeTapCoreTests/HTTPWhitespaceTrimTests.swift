import Testing
import RangeTapCore

/// `trimmingHTTPWhitespace` reads bytes where that is safe; it must trim exactly as the
/// character reading it replaced, kept here, including around combining and prepended marks.
@Suite("HTTP whitespace trimming")
struct HTTPWhitespaceTrimTests {
    @Test func trimsAsTheCharacterReading() {
        var generator = SeededGenerator(seed: 0x7219)
        let pieces = [
            " ", " ", "\t", "a", "Z", "0", ",", "\r", "\n", "\r\n", "é", "ÿ", "\u{301}", "\u{200D}", "\u{0600}",
            "\u{0903}", "😀", "\u{1F1E6}", "=",
        ]
        var texts = [
            "", " ", "\t", " \t ", " \u{301}x", "x \u{301}", "\u{0600} ", " \u{0600}", "  \u{301}x", "x\u{301} ",
        ]
        for _ in 0..<30_000 {
            texts.append(
                (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined())
        }
        for text in texts {
            let context = Comment(rawValue: String(reflecting: text))
            #expect(
                Array(text.trimmingHTTPWhitespace().unicodeScalars)
                    == Array(Self.characterTrim(Substring(text)).unicodeScalars), context)
            // A slice of a longer string trims by its own bounds.
            let padded = "x" + text + "y"
            let inner = padded.dropFirst().dropLast()
            #expect(
                Array(inner.trimmingHTTPWhitespace().unicodeScalars) == Array(Self.characterTrim(inner).unicodeScalars),
                context)
        }
    }

    static func characterTrim(_ text: Substring) -> Substring {
        var s = text
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
