import NIOHTTP1
import RangeTapCore
@testable import RangeTapProxy
import Testing

private func fieldList(_ headers: HTTPHeaders) -> [String] {
    headers.map { "\($0.name): \($0.value)" }
}

@Suite("HeaderForwarding")
struct HeaderForwardingTests {
    @Test func upstreamRequestDropsHopByHopAndKeepsTheRestInOrderAndCase() {
        let headers = HTTPHeaders([
            ("Host", "example.com"),
            ("If-Match", "\"abc\""),
            ("Connection", "keep-alive, X-Hop"),
            ("Keep-Alive", "timeout=5"),
            ("Icy-MetaData", "1"),
            ("Proxy-Connection", "keep-alive"),
            ("Proxy-Authorization", "Basic Zm9vOmJhcg=="),
            ("TE", "trailers"),
            ("Range", "bytes=0-1"),
            ("Upgrade", "h2c"),
            ("Content-Length", "0"),
            ("x-hop", "secret"),
            ("Transfer-Encoding", "chunked"),
            ("Trailer", "X-Sum"),
            ("Accept-Encoding", "identity"),
        ])
        #expect(
            HeaderForwarding.upstreamRequestLines(headers) == [
                "If-Match: \"abc\"",
                "Icy-MetaData: 1",
                "Range: bytes=0-1",
                "Accept-Encoding: identity",
                "Accept:",
                "Expect:",
                "Content-Type:",
            ])
    }

    @Test func connectionListedNamesAreMatchedCaseInsensitivelyAcrossSeveralFields() {
        let headers = HTTPHeaders([
            ("connection", "X-ONE ,  x-two"),
            ("Connection", "close"),
            ("X-One", "1"),
            ("X-Two", "2"),
            ("X-Three", "3"),
        ])
        #expect(
            HeaderForwarding.upstreamRequestLines(headers) == ["X-Three: 3", "Accept:", "Expect:", "Content-Type:"])
    }

    /// libcurl adds `Accept`, `Expect` (for large bodies) and `Content-Type` (for a body) of its
    /// own unless told not to: each is blanked when the client sent none, and only then.
    @Test func acceptExpectAndContentTypeAreOnlyBlankedWhenAbsent() {
        let withAll = HTTPHeaders([
            ("accept", "*/*"), ("Range", "bytes=5-"), ("EXPECT", "100-continue"), ("content-type", "text/plain"),
        ])
        #expect(
            HeaderForwarding.upstreamRequestLines(withAll) == [
                "accept: */*", "Range: bytes=5-", "EXPECT: 100-continue", "content-type: text/plain",
            ])

        let withAccept = HTTPHeaders([("Accept", "video/*")])
        #expect(HeaderForwarding.upstreamRequestLines(withAccept) == ["Accept: video/*", "Expect:", "Content-Type:"])

        let withExpect = HTTPHeaders([("Expect", "100-continue")])
        #expect(
            HeaderForwarding.upstreamRequestLines(withExpect) == ["Expect: 100-continue", "Accept:", "Content-Type:"])

        #expect(HeaderForwarding.upstreamRequestLines(HTTPHeaders()) == ["Accept:", "Expect:", "Content-Type:"])
    }

    @Test func emptyValuesAreSentAsEmptyNotRemoved() {
        let headers = HTTPHeaders([("X-Empty", ""), ("Accept", "")])
        #expect(HeaderForwarding.upstreamRequestLines(headers) == ["X-Empty;", "Accept;", "Expect:", "Content-Type:"])
    }

    @Test func duplicateFieldsAreAllForwarded() {
        let headers = HTTPHeaders([("X-Dup", "1"), ("Range", "bytes=0-1"), ("x-dup", "2")])
        #expect(
            HeaderForwarding.upstreamRequestLines(headers) == [
                "X-Dup: 1", "Range: bytes=0-1", "x-dup: 2", "Accept:", "Expect:", "Content-Type:",
            ])
    }

    @Test func clientResponseHeadersDropHopByHopAndKeepSpelling() {
        let lines = [
            "HTTP/1.1 206 Partial Content\r\n",
            "accept-ranges: bytes\r\n",
            "Connection: keep-alive, X-Internal\r\n",
            "Content-range: bytes 0-1/100\r\n",
            "Keep-Alive: timeout=5, max=100\r\n",
            "Transfer-Encoding: chunked\r\n",
            "x-internal: 1\r\n",
            "Trailer: X-Checksum\r\n",
            "Upgrade: foo\r\n",
            "Proxy-Connection: close\r\n",
            "te: trailers\n",
            "Content-Length:   2  \r\n",
            "Set-Cookie: a=1\r\n",
            "set-cookie: b=2\r\n",
            "\r\n",
        ].map(HeaderLine.init(raw:))
        let headers = HeaderForwarding.clientResponseHeaders(lines)
        #expect(
            fieldList(headers) == [
                "accept-ranges: bytes",
                "Content-range: bytes 0-1/100",
                "Content-Length: 2",
                "Set-Cookie: a=1",
                "set-cookie: b=2",
            ])
    }

    @Test func clientResponseHeadersOfAHeadWithoutFields() {
        let lines = ["HTTP/1.1 204 No Content\r\n", "\r\n"].map(HeaderLine.init(raw:))
        #expect(fieldList(HeaderForwarding.clientResponseHeaders(lines)).isEmpty)
    }

    @Test func captureLinesRedactSecretsUnlessKept() {
        let headers = HTTPHeaders([
            ("Host", "example.com"),
            ("Authorization", "Bearer token"),
            ("cookie", "a=1; b=2"),
            ("Proxy-Authorization", "Basic x"),
            ("Range", "bytes=0-1"),
        ])
        #expect(
            HeaderForwarding.captureLines(headers, keepSecrets: false).map(\.raw) == [
                "Host: example.com\r\n",
                "Authorization: <redacted>\r\n",
                "cookie: <redacted>\r\n",
                "Proxy-Authorization: <redacted>\r\n",
                "Range: bytes=0-1\r\n",
            ])
        #expect(
            HeaderForwarding.captureLines(headers, keepSecrets: true).map(\.raw) == [
                "Host: example.com\r\n",
                "Authorization: Bearer token\r\n",
                "cookie: a=1; b=2\r\n",
                "Proxy-Authorization: Basic x\r\n",
                "Range: bytes=0-1\r\n",
            ])
    }
}

/// `HeaderForwarding.clientResponseHead`: the raw head sent downstream, changed only where RFC
/// 9112 and RFC 9110 §7.6.1 require it of a proxy.
@Suite("HeaderForwarding response head")
struct HeaderForwardingResponseHeadTests {
    private func head(_ raw: [String]) throws -> ForwardedResponseHead {
        try HeaderForwarding.clientResponseHead(raw.map(HeaderLine.init(raw:)))
    }

    @Test func everythingElsePassesByteForByte() throws {
        let raw = [
            "HTTP/1.1 206 partial  CONTENT \t\r\n",
            "content-range: bytes 0-1/10\r\n",
            "X-Pad:  \t spaced value \t \r\n",
            "X-Empty:\r\n",
            "Set-Cookie: a=1\r\n",
            "X-Latin: caf\u{E9}\r\n",
            "set-cookie: b=2\r\n",
            "Content-Length:2\r\n",
            "\r\n",
        ]
        let h = try head(raw)
        #expect(h.changes.isEmpty, "\(h.changes)")
        #expect(h.statusLine == raw[0])
        #expect(h.fields == Array(raw[1..<8]))
        #expect(h.text == raw.joined())
        #expect(h.bytes == Latin1.bytes(raw.joined()))
        #expect(h.bytes.contains(0xE9), "obs-text bytes are kept")
    }

    @Test func whitespaceBeforeTheColonIsRemoved() throws {
        let h = try head([
            "HTTP/1.1 206 Partial Content\r\n", "Content-Range \t: bytes 0-1/10 \r\n", "Content-Length: 2\r\n", "\r\n",
        ])
        #expect(h.fields == ["Content-Range: bytes 0-1/10 \r\n", "Content-Length: 2\r\n"])
        #expect(
            h.changes == [
                HeadChange(
                    .spaceBeforeColon, original: ["Content-Range \t: bytes 0-1/10 \r\n"],
                    replacement: "Content-Range: bytes 0-1/10 \r\n")
            ])
    }

    @Test func obsFoldIsJoinedWithOneSpace() throws {
        let h = try head([
            "HTTP/1.1 200 OK\r\n",
            "X-Folded: part one \t\r\n",
            "\t  part two\r\n",
            " part three \r\n",
            "Content-Length: 0\r\n",
            "\r\n",
        ])
        #expect(h.fields == ["X-Folded: part one part two part three \r\n", "Content-Length: 0\r\n"])
        #expect(
            h.changes == [
                HeadChange(
                    .obsFold, original: ["X-Folded: part one \t\r\n", "\t  part two\r\n", " part three \r\n"],
                    replacement: "X-Folded: part one part two part three \r\n")
            ])
    }

    @Test func whitespaceRightAfterTheStatusLineIsDropped() throws {
        let h = try head(["HTTP/1.1 200 OK\r\n", " X-Sneaky: 1\r\n", "Content-Length: 0\r\n", "\r\n"])
        #expect(h.fields == ["Content-Length: 0\r\n"])
        #expect(h.changes.map(\.reason) == [.whitespaceAfterStatusLine])
    }

    @Test func hopByHopAndConnectionListedFieldsAreDropped() throws {
        let h = try head([
            "HTTP/1.1 200 OK\r\n",
            "Connection: keep-alive,\r\n",
            " X-Internal\r\n",
            "Keep-Alive: timeout=5\r\n",
            "Proxy-Connection: close\r\n",
            "TE: trailers\r\n",
            "Transfer-Encoding : chunked\r\n",
            "Upgrade: h2c\r\n",
            "Trailer: X-Sum\r\n",
            "x-internal: 1\r\n",
            "X-Kept: 1\r\n",
            "\r\n",
        ])
        #expect(h.fields == ["X-Kept: 1\r\n"])
        // In upstream order, per field: its repairs, then why it was dropped.
        #expect(
            h.changes.map(\.reason) == [
                .obsFold, .hopByHop, .hopByHop, .hopByHop, .hopByHop, .spaceBeforeColon, .hopByHop, .hopByHop,
                .hopByHop, .connectionListed,
            ])
        #expect(h.changes.last?.original == ["x-internal: 1\r\n"])
        #expect(h.changes.last?.replacement == nil)
    }

    @Test func aBareCRInAValueIsRefused() throws {
        let h = try head([
            "HTTP/1.1 200 OK\r\n",
            "X-Split: a\rSet-Cookie: evil=1\r\n",
            "X-Folded: b\r\n",
            " c\rd\r\n",
            "X-Kept: e\r\n",
            "\r\n",
        ])
        #expect(h.fields == ["X-Kept: e\r\n"])
        #expect(h.changes.map(\.reason) == [.bareCR, .obsFold, .bareCR])
        #expect(h.changes[0].original == ["X-Split: a\rSet-Cookie: evil=1\r\n"])
        #expect(!h.text.contains("evil"))
    }

    @Test func bareLFLineEndingsAreSentAsCRLF() throws {
        let h = try head(["HTTP/1.1 200 OK\n", "Content-Length: 0\n", "X-A: 1\r\n", "\n"])
        #expect(h.text == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-A: 1\r\n\r\n")
        #expect(h.changes == [HeadChange(.bareLF, original: ["HTTP/1.1 200 OK\n", "Content-Length: 0\n", "\n"])])
    }

    @Test func linesThatAreNoFieldLinesAreDropped() throws {
        let h = try head([
            "HTTP/1.1 200 OK\r\n", "garbage\r\n", " continues garbage\r\n", "Foo Bar: x\r\n", "X-Kept: 1\r\n", "\r\n",
        ])
        #expect(h.fields == ["X-Kept: 1\r\n"])
        #expect(h.changes.map(\.reason) == [.malformedLine, .malformedLine, .malformedLine])
    }

    @Test func linesAfterTheBlankLineAreIgnoredAndAMissingBlankLineIsAdded() throws {
        let h = try head(["HTTP/1.1 204 No Content\r\n", "X-A: 1\r\n", "\r\n", "X-After: 2\r\n"])
        #expect(h.text == "HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n")
        let cut = try head(["HTTP/1.1 204 No Content\r\n", "X-A: 1\r\n"])
        #expect(cut.text == "HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n")
    }

    @Test func aHeadWithoutAUsableStatusLineIsATypedError() {
        #expect(throws: ForwardedHeadError.missingStatusLine("X-A: 1\r\n")) { try head(["X-A: 1\r\n", "\r\n"]) }
        #expect(throws: ForwardedHeadError.missingStatusLine("")) { try head([]) }
        #expect(throws: ForwardedHeadError.bareCRInStatusLine("HTTP/1.1 200 OK\rX: 1\r\n")) {
            try head(["HTTP/1.1 200 OK\rX: 1\r\n", "\r\n"])
        }
        #expect(ForwardedHeadError.missingStatusLine("junk").description.contains("status line"))
    }

    @Test func clientResponseHeadersStillDropsWhatItDidBefore() {
        // The proxy keeps using clientResponseHeaders until it sends the raw head.
        let lines = ["HTTP/1.1 200 OK\r\n", "Content-Range : bytes 0-1/10\r\n", "X-A: 1\r\n", "\r\n"].map(
            HeaderLine.init(raw:))
        #expect(fieldList(HeaderForwarding.clientResponseHeaders(lines)) == ["X-A: 1"])
    }
}

@Suite("RequestTarget")
struct RequestTargetTests {
    private func refusal(_ result: Result<String, RequestTarget.Refusal>) -> RequestTarget.Refusal? {
        if case .failure(let r) = result { r } else { nil }
    }

    @Test(arguments: [
        "http://example.com/a.mp4",
        "https://cdn.example.com:8443/v/seg-1.m4s?token=a/b#frag",
        "HTTP://Example.COM/UPPER",
        "http://127.0.0.1:8081/a.mp4",
        "http://example.com:8080/",
    ])
    func absoluteTargetsPassThrough(target: String) {
        #expect(RequestTarget.resolve(target, upstream: nil, ownPort: 8080) == .success(target))
        #expect(RequestTarget.resolve(target, upstream: "http://other.example", ownPort: 8080) == .success(target))
    }

    @Test func originFormGoesToTheUpstream() {
        #expect(
            RequestTarget.resolve("/a.mp4?x=1", upstream: "https://cdn.example.com", ownPort: 8080)
                == .success("https://cdn.example.com/a.mp4?x=1"))
        #expect(
            RequestTarget.resolve("/a.mp4", upstream: "https://cdn.example.com/", ownPort: 8080)
                == .success("https://cdn.example.com/a.mp4"))
        #expect(
            RequestTarget.resolve("/a.mp4", upstream: "http://cdn.example.com/base//", ownPort: 8080)
                == .success("http://cdn.example.com/base/a.mp4"))
        #expect(
            RequestTarget.resolve("/", upstream: "http://127.0.0.1:9000", ownPort: 8080)
                == .success("http://127.0.0.1:9000/"))
    }

    @Test func originFormWithoutUpstreamIsABadRequestThatMentionsUpstream() throws {
        let r = try #require(refusal(RequestTarget.resolve("/a.mp4", upstream: nil, ownPort: 8080)))
        #expect(r.status == .badRequest)
        #expect(r.message.contains("--upstream"))
        #expect(r.message.contains("/a.mp4"))
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/a.mp4", 8080),
        ("http://127.0.0.1:8080", 8080),
        ("http://localhost:8080/x", 8080),
        ("http://LOCALHOST:8080/x", 8080),
        ("http://127.1.2.3:8080/x", 8080),
        ("http://[::1]:8080/x", 8080),
        ("http://user:pw@127.0.0.1:8080/x", 8080),
        ("http://127.0.0.1/x", 80),
        ("https://localhost/x", 443),
        ("http://127.0.0.1:8080?q", 8080),
    ])
    func targetsPointingAtTheProxyItselfAreRefused(target: String, ownPort: Int) throws {
        let r = try #require(refusal(RequestTarget.resolve(target, upstream: nil, ownPort: ownPort)))
        #expect(r.status == .loopDetected)
        #expect(r.message.contains(URLRedaction.redactingUserinfo(target)))
        #expect(r.message.contains("loop"))
    }

    @Test func loopbackOnAnotherPortOrWithoutAKnownPortIsNotALoop() {
        #expect(
            RequestTarget.resolve("http://127.0.0.1:8081/", upstream: nil, ownPort: 8080)
                == .success("http://127.0.0.1:8081/"))
        #expect(
            RequestTarget.resolve("http://127.0.0.1/", upstream: nil, ownPort: 8080) == .success("http://127.0.0.1/"))
        #expect(
            RequestTarget.resolve("https://127.0.0.1/", upstream: nil, ownPort: 80) == .success("https://127.0.0.1/"))
        #expect(
            RequestTarget.resolve("http://127.0.0.1:8080/", upstream: nil, ownPort: 0)
                == .success("http://127.0.0.1:8080/"))
        #expect(
            RequestTarget.resolve("http://example.com:8080/", upstream: nil, ownPort: 8080)
                == .success("http://example.com:8080/"))
    }

    @Test func upstreamPointingAtTheProxyItselfIsRefused() throws {
        // Reverse-proxy mode with --upstream naming rangetap's own address would forward every
        // request back to itself, without end; it must be refused like an absolute-form loop.
        let r = try #require(refusal(RequestTarget.resolve("/a.mp4", upstream: "http://127.0.0.1:8080", ownPort: 8080)))
        #expect(r.status == .loopDetected)
    }

    @Test(arguments: ["example.com:443", "*", "ftp://example.com/a", "a.mp4", "", "http:/example.com/a"])
    func garbageTargetsAreBadRequests(target: String) throws {
        let r = try #require(refusal(RequestTarget.resolve(target, upstream: "http://cdn.example.com", ownPort: 8080)))
        #expect(r.status == .badRequest)
        #expect(r.message.contains("\"\(target)\""))
        #expect(r.message.contains("expected http://host/path or /path"))
    }

    @Test func longGarbageTargetIsQuotedOnlyInPart() throws {
        let target = String(repeating: "x", count: 5000)
        let r = try #require(refusal(RequestTarget.resolve(target, upstream: nil, ownPort: 8080)))
        #expect(r.status == .badRequest)
        #expect(r.message.count < 400)
    }

    @Test func authorityOfURLs() {
        #expect(RequestTarget.authority(of: "http://example.com/a") == "example.com")
        #expect(RequestTarget.authority(of: "https://u:p@example.com:8443?x") == "example.com:8443")
        #expect(RequestTarget.authority(of: "http://[::1]:8080#f") == "[::1]:8080")
        #expect(RequestTarget.authority(of: "no-scheme") == nil)
    }
}
