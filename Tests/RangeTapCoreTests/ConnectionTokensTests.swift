import Testing
@testable import RangeTapCore

/// `Connection` values are split by bytes when ASCII; the tokens must be those the character
/// split found (empty pieces and whitespace dropped, lowercased).
@Suite("Connection tokens")
struct ConnectionTokensTests {
    @Test func tokensAreThoseOfTheCharacterSplit() {
        var generator = SeededGenerator(seed: 0xC011)
        let pieces = [
            "keep-alive", "Keep-Alive", "close", "X-Foo", "TE", ",", ",", " ", "\t", "", "é", "É", "\u{212A}",
            "\u{301}", "Upgrade",
        ]
        for _ in 0..<10_000 {
            let values = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                Substring(
                    (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                        .joined())
            }
            var reference = Set<String>()
            for v in values {
                for token in v.split(separator: ",") {
                    let t = token.trimmingHTTPWhitespace()
                    if !t.isEmpty { reference.insert(t.lowercased()) }
                }
            }
            #expect(
                ForwardedResponseHead.connectionTokens(values) == reference,
                Comment(rawValue: String(reflecting: values)))
        }
    }
}
