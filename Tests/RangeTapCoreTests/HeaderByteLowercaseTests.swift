@testable import RangeTapCore
import Testing

/// `HeaderByte.asciiLowercased`, which ``ForwardedResponseHead`` uses for every field name in
/// place of `lowercased()`: the same result for field names, and for any other text.
@Suite struct HeaderByteLowercaseTests {
    @Test(arguments: [
        "Content-Length", "content-length", "ETag", "X-Very-Long-Custom-Header-Name-Over-15", "", "A", "a", "Z@[`{",
        "Äpfel", "MIXED-ß-Text", "日本",
    ])
    func agreesWithLowercased(_ text: String) {
        let s = Substring(text)
        #expect(HeaderByte.asciiLowercased(s) == text.lowercased())
    }

    /// 5,000 random token names (every token character, 1 to 40 of them).
    @Test func agreesWithLowercasedOnRandomTokens() {
        let tchars = Array("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SeededGenerator(seed: 0x15)
        for _ in 0..<5_000 {
            let name = String(
                (0..<Int.random(in: 1...40, using: &generator)).map { _ in tchars.randomElement(using: &generator)! })
            #expect(HeaderByte.asciiLowercased(Substring(name)) == name.lowercased(), "\(name)")
        }
    }
}
