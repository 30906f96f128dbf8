import RangeTapCore
import Testing

/// `HeaderLine` reads its lines byte by byte (for speed: it runs on every line of every exchange).
/// These tests hold it to the code-point reading it replaced, kept here as `ScalarReading`, over
/// random lines of token characters, whitespace, colons, bare CRs and LFs, status-line pieces,
/// Latin-1, combining marks and emoji.
@Suite("HeaderLine byte reading agrees with code-point reading")
struct HeaderLineByteReadingTests {
    @Test func everyAccessorAgreesOnRandomLines() {
        var generator = SeededGenerator(seed: 0xB17E5)
        let pieces: [String] = [
            "a", "Z", "0", "9", "-", "!", "~", "`", "|", "^", "_", ".", "'", "*", " ", "\t", ":", ":", "\r", "\n",
            "HTTP/", "HTTP/1.1 ", "HTTP/2 ", "206", " OK", "é", "ÿ", "\u{80}", "\u{301}", "\u{596}", "😀", "@", ",",
            "\"",
            "Content-Range", "Set-Cookie", "COOKIE", "authorization", "Connection",
        ]
        let terminators = ["\r\n", "\n", "", "\r\n", "\r\r\n"]
        var lines: [String] = [
            "", "\r\n", "\n", "HTTP/1.1 206 Partial Content\r\n", "HTTP/2 200\r\n", "HTTP/2 200", "HTTP/1.1 200",
            "Cookie: a=b\r\n", "X : y\r\n", " folded\r\n", ": x\r\n", "pte:\u{596}x\n", "Cafe\u{301}: x\r\n",
        ]
        for _ in 0..<20_000 {
            var line = ""
            for _ in 0..<Int.random(in: 0...9, using: &generator) { line += pieces.randomElement(using: &generator)! }
            lines.append(line + terminators.randomElement(using: &generator)!)
        }
        for raw in lines {
            let line = HeaderLine(raw: raw)
            let reference = ScalarReading(raw: raw)
            let context = Comment(rawValue: String(reflecting: raw))
            #expect(scalars(line.content) == scalars(reference.content), context)
            #expect(scalars(line.terminator) == scalars(reference.terminator), context)
            #expect(line.name.map(scalars) == reference.name.map(scalars), context)
            #expect(line.value.map(scalars) == reference.value.map(scalars), context)
            #expect(line.syntax == reference.syntax, context)
            #expect(line.lineEnding == reference.lineEnding, context)
            #expect(line.containsBareCR == reference.containsBareCR, context)
            #expect(line.isSecret == reference.isSecret, context)
            #expect(line.isBlank == reference.content.isEmpty, context)
            // The response head reads a line with a name as a field without asking its syntax.
            #expect((line.name != nil) == (line.syntax == .field), context)
            // The last four are no tokens (lookups by them find nothing).
            for name in ["content-range", "Set-Cookie", "connection", "a", "A", "", "a b", "Set-Cookie:", "\u{301}"] {
                #expect([line].values(named: name).map(scalars) == reference.values(named: name).map(scalars), context)
                #expect(
                    [line].first(named: name).map { scalars(Substring($0)) }
                        == reference.values(named: name).first.map(scalars), context)
                #expect(line.isNamed(name) == (reference.name?.lowercased() == name.lowercased()), context)
            }
        }
    }

    private func scalars(_ s: some StringProtocol) -> [Unicode.Scalar] { Array(s.unicodeScalars) }
}

/// The code-point reading `HeaderLine` used before it read bytes.
private struct ScalarReading {
    let raw: String

    var content: Substring {
        let scalars = raw.unicodeScalars
        var end = scalars.endIndex
        if end > scalars.startIndex, scalars[scalars.index(before: end)] == "\n" {
            end = scalars.index(before: end)
            if end > scalars.startIndex, scalars[scalars.index(before: end)] == "\r" {
                end = scalars.index(before: end)
            }
        }
        return Substring(scalars[..<end])
    }

    var terminator: String {
        String(String.UnicodeScalarView(raw.unicodeScalars.dropFirst(content.unicodeScalars.count)))
    }

    var name: Substring? {
        let c = content.unicodeScalars
        guard let colon = c.firstIndex(of: ":") else { return nil }
        let n = c[..<colon]
        guard !n.isEmpty, n.allSatisfy(Self.isToken) else { return nil }
        return Substring(n)
    }

    var value: Substring? {
        let c = content.unicodeScalars
        guard name != nil, let colon = c.firstIndex(of: ":") else { return nil }
        return Substring(c[c.index(after: colon)...]).trimmingHTTPWhitespace()
    }

    var isSecret: Bool {
        guard let name else { return false }
        return HeaderLine.secretNames.contains(name.lowercased())
    }

    func values(named query: String) -> [Substring] {
        guard let n = name, n.lowercased() == query.lowercased() else { return [] }
        return value.map { [$0] } ?? []
    }

    var syntax: HeaderLine.Syntax {
        let scalars = Array(content.unicodeScalars)
        guard let first = scalars.first else { return .blank }
        if first == " " || first == "\t" { return .obsFoldContinuation }
        if Self.isStatusLine(scalars) { return .statusLine }
        guard let colon = scalars.firstIndex(of: ":") else { return .noColon }
        let before = scalars[..<colon]
        if !before.isEmpty, before.allSatisfy(Self.isToken) { return .field }
        var name = before
        while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
        if name.count < before.count, !name.isEmpty, name.allSatisfy(Self.isToken) {
            var s = String.UnicodeScalarView()
            s.append(contentsOf: name)
            return .spaceBeforeColon(name: String(s))
        }
        return .invalidName
    }

    var lineEnding: HeaderLine.LineEnding {
        switch terminator {
        case "\r\n": .crlf
        case "\n": .bareLF
        default: .none
        }
    }

    var containsBareCR: Bool { content.unicodeScalars.contains("\r") }

    private static func isStatusLine(_ s: [Unicode.Scalar]) -> Bool {
        let prefix: [Unicode.Scalar] = ["H", "T", "T", "P", "/"]
        if s.count >= 10, Array(s[0..<5]) == prefix, isDigit(s[5]), s[6] == " ", isDigit(s[7]), isDigit(s[8]),
            isDigit(s[9])
        {
            return s.count == 10 || s[10] == " "
        }
        guard s.count >= 12, Array(s[0..<5]) == prefix, isDigit(s[5]), s[6] == ".", isDigit(s[7]), s[8] == " ",
            isDigit(s[9]), isDigit(s[10]), isDigit(s[11])
        else { return false }
        return s.count == 12 || s[12] == " "
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    private static func isToken(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: c.isASCII && "!#$%&'*+-.^_`|~".unicodeScalars.contains(c)
        }
    }
}

@Suite("URLRedaction's byte search")
struct URLRedactionSeparatorTests {
    @Test(arguments: [
        ("http://user:pw@host/a", "http://user:<redacted>@host/a"),
        ("a:b:https://u:p@h/x", "a:b:https://u:p@h/x"),
        ("x:/y://u:p@h", "x:/y://u:p@h"),
        ("https://u:p@h:8443/p?q=a@b", "https://u:<redacted>@h:8443/p?q=a@b"),
        ("http:/u:p@h", "http:/u:p@h"),
        ("http://h/path:with@colon", "http://h/path:with@colon"),
        ("://u:p@h", "://u:p@h"),
        ("é://u:p@h", "é://u:p@h"),
    ])
    func redactsWhatItDidBefore(url: String, expected: String) {
        #expect(URLRedaction.redactingUserinfo(url) == expected)
    }
}
