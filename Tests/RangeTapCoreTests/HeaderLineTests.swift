import RangeTapCore
import Testing

@Suite("HeaderLine and Latin1")
struct HeaderLineTests {
    @Test func crlfTerminatorIsSplitOff() {
        let line = HeaderLine(raw: "Content-Length: 2\r\n")
        #expect(line.content == "Content-Length: 2")
        #expect(line.terminator == "\r\n")
        #expect(line.terminator.unicodeScalars.count == 2)
        #expect(line.name == "Content-Length")
        #expect(line.value == "2")
        #expect(!line.isBlank)
        #expect(line.description == "Content-Length: 2\r\n")
    }

    @Test func bareLFTerminatorIsSplitOff() {
        let line = HeaderLine(raw: "Content-Length: 2\n")
        #expect(line.content == "Content-Length: 2")
        #expect(line.terminator == "\n")
        #expect(line.terminator.unicodeScalars.count == 1)
        #expect(line.value == "2")
    }

    @Test func lineWithoutTerminatorKeepsAllContent() {
        let line = HeaderLine(raw: "X-Cut: abc")
        #expect(line.content == "X-Cut: abc")
        #expect(line.terminator == "")
        // A lone CR is not a terminator.
        let cr = HeaderLine(raw: "X-Cut: abc\r")
        #expect(cr.content.unicodeScalars.count == "X-Cut: abc\r".unicodeScalars.count)
        #expect(cr.terminator == "")
    }

    @Test func nameKeepsItsCaseAndValueIsTrimmed() {
        let line = HeaderLine(raw: "accept-ranges: \t bytes \t\r\n")
        #expect(line.name == "accept-ranges")
        #expect(line.value == "bytes")
        let colonInValue = HeaderLine(raw: "Location: http://a:8080/x\r\n")
        #expect(colonInValue.name == "Location")
        #expect(colonInValue.value == "http://a:8080/x")
        let empty = HeaderLine(raw: "X-Empty:\r\n")
        #expect(empty.name == "X-Empty")
        #expect(empty.value == "")
    }

    @Test func statusLineHasNoName() {
        let status = HeaderLine(raw: "HTTP/1.1 206 Partial Content\r\n")
        #expect(status.name == nil)
        #expect(status.value == nil)
        #expect(!status.isBlank)
        let colonInReason = HeaderLine(raw: "HTTP/1.1 200 OK: fine\r\n")
        #expect(colonInReason.name == nil)
        let spaceBeforeColon = HeaderLine(raw: "Bad Name: x\r\n")
        #expect(spaceBeforeColon.name == nil)
        let noName = HeaderLine(raw: ": x\r\n")
        #expect(noName.name == nil)
    }

    @Test func blankLines() {
        for raw in ["\r\n", "\n", ""] {
            let line = HeaderLine(raw: raw)
            #expect(line.isBlank, "\(raw.unicodeScalars.map(\.value))")
            #expect(line.name == nil)
            #expect(line.terminator == raw)
        }
        #expect(!HeaderLine(raw: " \r\n").isBlank)
    }

    @Test func redactionKeepsNameCaseAndTerminator() {
        let crlf = HeaderLine(raw: "authorization: Bearer abc.def\r\n").redacted()
        #expect(crlf.raw == "authorization: <redacted>\r\n")
        let lf = HeaderLine(raw: "Cookie: a=1; b=2\n").redacted()
        #expect(lf.raw == "Cookie: <redacted>\n")
        let status = HeaderLine(raw: "HTTP/1.1 200 OK\r\n")
        #expect(status.redacted() == status)
    }

    @Test func secretsAreRecognisedCaseInsensitively() {
        let lines = [
            HeaderLine(raw: "HTTP/1.1 200 OK\r\n"),
            HeaderLine(raw: "AUTHORIZATION: Basic Zm9v\r\n"),
            HeaderLine(raw: "set-cookie: s=1\n"),
            HeaderLine(raw: "Proxy-Authorization: x\r\n"),
            HeaderLine(raw: "Cookie: c=2\r\n"),
            HeaderLine(raw: "X-Authorization-Hint: keep\r\n"),
            HeaderLine(raw: "\r\n"),
        ]
        let redacted = lines.redactingSecrets()
        #expect(
            redacted.map(\.raw) == [
                "HTTP/1.1 200 OK\r\n",
                "AUTHORIZATION: <redacted>\r\n",
                "set-cookie: <redacted>\n",
                "Proxy-Authorization: <redacted>\r\n",
                "Cookie: <redacted>\r\n",
                "X-Authorization-Hint: keep\r\n",
                "\r\n",
            ])
    }

    @Test func anHTTP2AuthorityLosesItsPasswordAsURLsDo() {
        let lines = [
            HeaderLine(raw: ":method: GET\r\n"),
            HeaderLine(raw: ":authority: user:s3cret@cdn.example:8443\r\n"),
            HeaderLine(raw: ":path: /a.mp4\r\n"),
        ]
        #expect(
            lines.redactingSecrets().map(\.raw) == [
                ":method: GET\r\n", ":authority: user:<redacted>@cdn.example:8443\r\n", ":path: /a.mp4\r\n",
            ])
        // No password, nothing to redact: a user name alone, or no userinfo.
        for kept in [":authority: user@cdn.example\r\n", ":authority: cdn.example:443\r\n"] {
            #expect([HeaderLine(raw: kept)].redactingSecrets().map(\.raw) == [kept])
        }
    }

    @Test func valuesNamedIsCaseInsensitiveOverDuplicates() {
        let lines = [
            HeaderLine(raw: "HTTP/1.1 200 OK\r\n"),
            HeaderLine(raw: "Vary: Accept\r\n"),
            HeaderLine(raw: "Content-Type: video/mp4\r\n"),
            HeaderLine(raw: "vary: Range\n"),
            HeaderLine(raw: "VARY:  Origin \r\n"),
            HeaderLine(raw: "\r\n"),
        ]
        #expect(lines.values(named: "VaRy") == ["Accept", "Range", "Origin"])
        #expect(lines.first(named: "vary") == "Accept")
        #expect(lines.first(named: "content-type") == "video/mp4")
        #expect(lines.values(named: "Content-Range").isEmpty)
        #expect(lines.first(named: "Content-Range") == nil)
    }

    @Test func latin1RoundTripsAllByteValues() {
        let bytes = (0...255).map { UInt8($0) }
        let text = Latin1.string(bytes)
        #expect(text.unicodeScalars.count == 256)
        #expect(text.unicodeScalars.map(\.value) == (0...255).map { UInt32($0) })
        #expect(Latin1.bytes(text) == bytes)
    }

    @Test func latin1MapsCodePointsAboveFFToQuestionMark() {
        #expect(Latin1.bytes("a\u{100}€b") == [0x61, 0x3F, 0x3F, 0x62])
    }

    @Test func headerLineKeepsHighBytesExactly() {
        let raw: [UInt8] = Array("X-Name: caf".utf8) + [0xE9, 0xFF, 0x80] + [0x0D, 0x0A]
        let line = HeaderLine(raw: Latin1.string(raw))
        #expect(line.name == "X-Name")
        #expect(line.terminator == "\r\n")
        #expect(Latin1.bytes(String(line.value ?? "")) == Array("caf".utf8) + [0xE9, 0xFF, 0x80])
        #expect(Latin1.bytes(line.raw) == raw)
    }
}
