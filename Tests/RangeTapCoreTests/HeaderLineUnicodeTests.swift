import RangeTapCore
import Testing

/// Found while fuzzing (issue 10): `name` looked for the colon character by character, `syntax`
/// code point by code point, so a colon followed by a combining mark (a capture's JSON may hold
/// any Unicode) gave a `.field` without a name.
@Suite("HeaderLine with combining marks")
struct HeaderLineUnicodeTests {
    @Test(arguments: [
        ("pte:\u{596}x\n", "pte", "\u{596}x"),
        ("X-A:\u{301} 1\r\n", "X-A", "\u{301} 1"),
        ("Content-Range: bytes 0-1/10\r\n", "Content-Range", "bytes 0-1/10"),
    ])
    func aFieldAlwaysHasItsNameAndValue(raw: String, name: String, value: String) {
        let line = HeaderLine(raw: raw)
        #expect(line.syntax == .field)
        #expect(line.name.map(String.init) == name)
        #expect(line.value.map { Array(String($0).unicodeScalars) } == Array(value.unicodeScalars))
        #expect([line].first(named: name.lowercased()).map { Array($0.unicodeScalars) } == Array(value.unicodeScalars))
    }

    @Test func aMarkedNameIsNoName() {
        let line = HeaderLine(raw: "Cafe\u{301}: x\r\n")
        #expect(line.syntax == .invalidName)
        #expect(line.name == nil)
        #expect(line.value == nil)
    }
}
