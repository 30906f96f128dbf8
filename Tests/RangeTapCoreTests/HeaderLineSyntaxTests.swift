import RangeTapCore
import Testing

@Suite("HeaderLine syntax")
struct HeaderLineSyntaxTests {
    @Test(arguments: [
        ("HTTP/1.1 206 Partial Content\r\n", HeaderLine.Syntax.statusLine),
        ("HTTP/1.0 200\r\n", .statusLine),
        ("HTTP/1.1 200 OK: fine\r\n", .statusLine),
        ("HTTP/2 206 \r\n", .statusLine),
        ("HTTP/2 200\r\n", .statusLine),
        ("HTTP/2 2000\r\n", .noColon),
        ("Content-Range: bytes 0-1/10\r\n", .field),
        ("X-Empty:\r\n", .field),
        ("content-length:2\n", .field),
        ("Content-Range : bytes 0-1/10\r\n", .spaceBeforeColon(name: "Content-Range")),
        ("Content-Range\t \t: bytes 0-1/10\r\n", .spaceBeforeColon(name: "Content-Range")),
        (" continued value\r\n", .obsFoldContinuation),
        ("\tcontinued: value\r\n", .obsFoldContinuation),
        ("garbage without colon\r\n", .noColon),
        ("HTTP/1.1 2000 Nope\r\n", .noColon),
        ("Foo Bar: x\r\n", .invalidName),
        (": x\r\n", .invalidName),
        (" : x\r\n", .obsFoldContinuation),
        ("\r\n", .blank),
        ("\n", .blank),
    ])
    func linesAreClassified(raw: String, syntax: HeaderLine.Syntax) {
        #expect(HeaderLine(raw: raw).syntax == syntax, "\(raw.debugDescription)")
    }

    @Test func spaceBeforeColonHidesTheNameButNotTheSyntax() {
        let line = HeaderLine(raw: "Content-Range : bytes 0-1/10\r\n")
        #expect(line.name == nil, "name stays strict: the field is invisible to name lookups")
        #expect([line].first(named: "Content-Range") == nil)
        let fixed = line.removingSpaceBeforeColon()
        #expect(fixed.raw == "Content-Range: bytes 0-1/10\r\n")
        #expect(fixed.syntax == .field)
        #expect([fixed].first(named: "Content-Range") == "bytes 0-1/10")
        // The value's own whitespace and the terminator are kept.
        #expect(HeaderLine(raw: "X-A \t:  v \t\n").removingSpaceBeforeColon().raw == "X-A:  v \t\n")
        // Other lines come back unchanged.
        for raw in ["X: 1\r\n", " fold\r\n", "HTTP/1.1 200 OK\r\n", "\r\n", "a b : c\r\n"] {
            #expect(HeaderLine(raw: raw).removingSpaceBeforeColon().raw == raw)
        }
    }

    @Test func lineEndingsAndBareCR() {
        #expect(HeaderLine(raw: "X: 1\r\n").lineEnding == .crlf)
        #expect(HeaderLine(raw: "X: 1\n").lineEnding == .bareLF)
        #expect(HeaderLine(raw: "X: 1").lineEnding == .none)
        #expect(HeaderLine(raw: "\n").lineEnding == .bareLF)
        #expect(!HeaderLine(raw: "X: 1\r\n").containsBareCR)
        #expect(HeaderLine(raw: "X: 1\rSet-Cookie: a=1\r\n").containsBareCR)
        #expect(HeaderLine(raw: "X: 1\r\r\n").containsBareCR)
        #expect(HeaderLine(raw: "X: 1\r").containsBareCR, "a CR without its LF is no terminator")
    }

    @Test func spaceBeforeColonIsNoSpellingFindingButHasItsOwnErrorCode() {
        let lines = [
            "HTTP/1.1 206 Partial Content\r\n", "Content-Range : bytes 0-1/10\r\n", "Content-Length: 2\r\n", "\r\n",
        ].map(HeaderLine.init(raw:))
        let findings = HeaderSpelling.findings(in: lines)
        #expect(findings.isEmpty, "spelling checks do not see it: \(findings)")
        #expect(FindingCode.headerSpaceBeforeColon.rawValue == "header-space-before-colon")
        #expect(FindingCode.headerSpaceBeforeColon.severity == .error)
    }
}
