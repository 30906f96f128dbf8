import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fault matrix of issue 10 ("Reliability and security"), one test per case, every case in
/// this one file (docs/reliability.md lists them with what rangetap does). Real sockets on
/// 127.0.0.1, the raw origin (Tests/Origins/raw_origin.py) or nginx upstream. Each case checks:
/// the client got a clear answer (a status and a body naming the problem) or a clean close; the
/// capture has the exchange, or an `error` event of a documented kind; `rangetap inspect` reads
/// the capture; and the proxy still serves a normal request right after.
@Suite(.serialized)
struct FaultMatrixTests {
    /// The `kind`s of `error` events documented in docs/capture-format.md.
    static let documentedKinds: Set<String> = [
        "bad-request", "refused", "upstream", "interrupted", "client", "head-timeout", "upstream-timeout",
    ]

    let origin: RawOrigin
    /// `127.0.0.1:PORT` of the origin.
    let authority: String

    init() throws {
        origin = try RawOrigin()
        authority = "127.0.0.1:\(origin.port)"
        try origin.respond("ok", with: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    }

    // MARK: Helpers

    /// A request for the origin's `/r/NAME`, Latin-1.
    func request(_ name: String, method: String = "GET", headers: [String] = [], body: String = "") -> String {
        (["\(method) \(origin.url(name)) HTTP/1.1", "Host: \(authority)"] + headers + ["", ""]).joined(
            separator: "\r\n") + body
    }

    /// A normal request through `proxy` still gets its answer.
    func expectServes(_ proxy: ProxyHarness, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(request("ok"))
        #expect(
            try client.readHead().latin1.hasPrefix("HTTP/1.1 200 OK"), "the proxy no longer serves",
            sourceLocation: sourceLocation)
        #expect(try client.read(count: 2).latin1 == "ok", sourceLocation: sourceLocation)
    }

    /// Sends `bytes` on a new connection and reads until the proxy closes it.
    func exchange(_ proxy: ProxyHarness, _ bytes: [UInt8]) throws -> String {
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try? client.send(bytes)  // the proxy may answer and close before taking everything
        return try client.readToClose().latin1
    }

    /// Status code and body of a whole response held in `reply`.
    func parse(_ reply: String) -> (status: Int, body: String) {
        let status = Int(reply.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
        guard let end = reply.range(of: "\r\n\r\n") else { return (status, "") }
        return (status, String(reply[end.upperBound...]))
    }

    /// The capture's error events; every one must be of a documented kind.
    func errors(_ capture: RecordedCapture, sourceLocation: SourceLocation = #_sourceLocation) -> [ErrorEvent] {
        let errors = capture.events.compactMap { if case .error(let e) = $0 { e } else { nil } }
        for e in errors {
            #expect(
                Self.documentedKinds.contains(e.kind.rawValue), "undocumented error kind \(e.kind)",
                sourceLocation: sourceLocation)
        }
        return errors
    }

    /// `rangetap inspect --json` reads the capture; returns its exchanges.
    @discardableResult
    func expectInspectReads(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]]
    {
        let r = try runCommand(Paths.rangetap, ["inspect", path, "--json"], timeout: 120)
        #expect(r.status == 0, "inspect: \(r.stderr)", sourceLocation: sourceLocation)
        let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        return try #require(json?["exchanges"] as? [[String: Any]], sourceLocation: sourceLocation)
    }

    /// Stops the proxy, checks the capture is readable by `inspect` and returns it.
    func finish(
        _ proxy: ProxyHarness, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RecordedCapture {
        let capture = try await proxy.stopAndRead()
        try expectInspectReads(proxy.capturePath, sourceLocation: sourceLocation)
        return capture
    }

    // MARK: Client side: bytes that are not a request rangetap will forward

    /// A request rangetap refuses to parse, with the status and the words its answer must carry.
    struct BadBytes: Sendable, CustomTestStringConvertible {
        let name: String
        /// The bytes, given the origin's `HOST:PORT` (a smuggled request asks for /r/smuggled).
        let bytes: @Sendable (String) -> [UInt8]
        let status: Int
        let says: String
        var testDescription: String { name }

        static func text(
            _ name: String, status: Int = 400, says: String, _ make: @escaping @Sendable (String) -> String
        ) -> BadBytes {
            BadBytes(
                name: name, bytes: { Array(make($0).unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }) },
                status: status, says: says)
        }

        /// A POST for /r/victim with `headers` and `body`.
        static func post(_ name: String, _ headers: String, _ body: String, says: String) -> BadBytes {
            text(name, says: says) { "POST http://\($0)/r/victim HTTP/1.1\r\nHost: \($0)\r\n\(headers)\r\n\(body)" }
        }

        static let smuggled = "GET /r/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        static let all: [BadBytes] = [
            BadBytes(
                name: "garbage bytes", bytes: { _ in [0x00, 0x01, 0x02, 0xFF, 0xFE] + Array("garbage\r\n\r\n".utf8) },
                status: 400, says: "does not start with an HTTP method"),
            text("100 KB request line", status: 431, says: "request head is too large") {
                "GET http://\($0)/r/ok?\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: \($0)\r\n\r\n"
            },
            text("1 MB of headers", status: 431, says: "request head is too large") { a in
                "GET http://\(a)/r/ok HTTP/1.1\r\nHost: \(a)\r\n"
                    + (0..<1000).map { "X-H\($0): \(String(repeating: "v", count: 1000))\r\n" }.joined() + "\r\n"
            },
            post(
                "duplicate Content-Length", "Content-Length: 3\r\nContent-Length: 3\r\n", "abc", says: "content-length"),
            post(
                "conflicting Content-Length", "Content-Length: 3\r\nContent-Length: 40\r\n", "abc" + smuggled,
                says: "content-length"),
            post(
                "CL.TE", "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n" + smuggled,
                says: "Transfer-Encoding"),
            post(
                "TE.CL", "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", "2a\r\n" + smuggled + "\r\n0\r\n\r\n",
                says: "content-length"),
            post(
                "xchunked with Content-Length", "Transfer-Encoding: xchunked\r\nContent-Length: 3\r\n",
                "abc" + smuggled, says: "content-length"),
            post(
                "xchunked alone", "Transfer-Encoding: xchunked\r\n", "3\r\nabc\r\n0\r\n\r\n" + smuggled,
                says: "Transfer-Encoding"),
            post(
                "obs-fold in Transfer-Encoding with Content-Length",
                "Transfer-Encoding:\r\n chunked\r\nContent-Length: 3\r\n", "abc" + smuggled, says: "content-length"),
            post("chunk size not hex", "Transfer-Encoding: chunked\r\n", "zz\r\nabc\r\n0\r\n\r\n", says: "chunk size"),
            post(
                "chunk size over 64 bits", "Transfer-Encoding: chunked\r\n", "fffffffffffffffffff\r\nabc\r\n0\r\n\r\n",
                says: "chunk size"),
            post("negative chunk size", "Transfer-Encoding: chunked\r\n", "-3\r\nabc\r\n0\r\n\r\n", says: "chunk size"),
        ]
    }

    @Test(arguments: BadBytes.all)
    func badRequestBytesGetAClearAnswer(_ c: BadBytes) async throws {
        try origin.respond("victim", with: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno")
        try origin.respond("smuggled", with: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno")
        let proxy = try await ProxyHarness()
        let (status, body) = parse(try exchange(proxy, c.bytes(authority)))
        #expect(status == c.status)
        #expect(body.hasPrefix("rangetap: "), "\(body)")
        #expect(body.localizedCaseInsensitiveContains(c.says), "\(body)")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        // Refused before anything reached the origin: no request, no smuggled one.
        for name in ["victim", "smuggled"] {
            #expect(
                !FileManager.default.fileExists(atPath: "\(origin.directory)/\(name).req"), "\(name) reached the origin"
            )
        }
        let e = try #require(errors(capture).first)
        #expect(e.kind == .badRequest)
        #expect(e.status == c.status)
        #expect(e.message.localizedCaseInsensitiveContains(c.says))
    }

    /// The HTTP/2 preface starts h2c; a frame HTTP/2 forbids right after it (DATA on stream 0)
    /// gets a GOAWAY, the capture a `bad-request` error, and the proxy serves on.
    @Test func anHTTP2PrefaceThenAForbiddenFrameGetsGoawayAndIsRecorded() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 1, 0x0, 0, 0, 0, 0, 0, 0x78])
        let reply = try client.readToClose()
        // Frames: the server's SETTINGS (type 4), then a GOAWAY (type 7).
        #expect(reply.count >= 9 && reply[3] == 4, "\(reply.prefix(32))")
        var at = 0
        var types: [UInt8] = []
        while at + 9 <= reply.count {
            let length = Int(reply[at]) << 16 | Int(reply[at + 1]) << 8 | Int(reply[at + 2])
            types.append(reply[at + 3])
            at += 9 + length
        }
        #expect(types.contains(7), "a GOAWAY: \(types)")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .badRequest)
        #expect(e.message.contains("HTTP/2 protocol error"), "\(e.message)")
    }

    /// With `--http1` the preface is not HTTP/1.1: a 400 that says what to do.
    @Test func withHTTP1TheHTTP2PrefaceGetsAClearAnswer() async throws {
        let proxy = try await ProxyHarness { $0.http1Only = true }
        let (status, body) = parse(try exchange(proxy, Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)))
        #expect(status == 400)
        #expect(body.contains("--http1"), "\(body)")
        try expectServes(proxy)
        _ = try await finish(proxy)
    }

    /// Transfer-Encoding folded onto a continuation line (and nothing else) is unfolded, read as
    /// chunked and forwarded once in rangetap's own chunked framing (the folded line is not
    /// passed on): the origin sees one request with the body, and not the bytes after it.
    @Test func obsFoldedChunkedAloneIsUnfoldedAndForwardedOnce() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(
            request(
                "ok", method: "POST", headers: ["Transfer-Encoding:", " chunked"],
                body: "3\r\nabc\r\n0\r\n\r\n" + BadBytes.smuggled))
        #expect(try client.readHead().latin1.hasPrefix("HTTP/1.1 200 OK"))
        #expect(try client.read(count: 2).latin1 == "ok")
        let got = try origin.request("ok")
        #expect(got.hasSuffix("\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), "\(got)")
        #expect(
            got.lowercased().components(separatedBy: "transfer-encoding").count == 2 && !got.contains("smuggled"),
            "\(got)")
        client.close()
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let ex = try #require(capture.exchanges.first)
        #expect(ex.method == "POST" && ex.outcome == .complete)
        // The raw lines as received, the fold kept.
        #expect(ex.requestHeaders.map(\.raw).contains(" chunked\r\n"))
    }

    @Test func tenThousandHeadersAreForwardedAndRecorded() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 20)
        try client.send(request("ok", headers: (0..<10_000).map { "X-\($0): v" }))
        #expect(try client.readHead().latin1.hasPrefix("HTTP/1.1 200 OK"))
        let got = try origin.request("ok")
        #expect(got.components(separatedBy: "\r\nX-").count - 1 == 10_000)
        client.close()
        try expectServes(proxy)
        let capture = try await finish(proxy)
        #expect(capture.exchanges.first?.requestHeaders.count == 10_001)
    }

    // MARK: Client side: requests rangetap forwards as they are

    struct AbsurdRange: Sendable, CustomTestStringConvertible {
        let name: String
        let value: String
        var testDescription: String { name }
        static let all = [
            AbsurdRange(name: "64-bit overflow", value: "bytes=18446744073709551616-99999999999999999999999"),
            AbsurdRange(
                name: "5,000 ranges", value: "bytes=" + (0..<5000).map { "\($0 * 2)-\($0 * 2)" }.joined(separator: ",")),
            AbsurdRange(name: "bytes=-0", value: "bytes=-0"),
            AbsurdRange(name: "reversed", value: "bytes=500-100"),
            AbsurdRange(name: "other unit", value: "items=0-5"),
            AbsurdRange(name: "negative start", value: "bytes=-5-10"),
        ]
    }

    @Test(arguments: AbsurdRange.all)
    func absurdRangesAreForwardedAndRecorded(_ c: AbsurdRange) async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(request("ok", headers: ["Range: \(c.value)"]))
        #expect(try client.readHead().latin1.hasPrefix("HTTP/1.1 200 OK"))
        #expect(try client.read(count: 2).latin1 == "ok")
        #expect(try origin.request("ok").contains("\r\nRange: \(c.value)\r\n"), "forwarded as sent")
        client.close()
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let ex = try #require(capture.exchanges.first)
        #expect(ex.requestHeaders.map(\.raw).contains("Range: \(c.value)\r\n"))
        #expect(ex.status == 200)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        for (name, body) in [("p1", "one"), ("p2", "two"), ("p3", "three")] {
            try origin.respond(name, with: "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n\(body)")
        }
        let proxy = try await ProxyHarness()
        let reply = try exchange(
            proxy, Array((request("p1") + request("p2") + request("p3", headers: ["Connection: close"])).utf8))
        #expect(reply.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
        let one = try #require(reply.range(of: "one")), two = try #require(reply.range(of: "two")),
            three = try #require(reply.range(of: "three"))
        #expect(one.upperBound <= two.lowerBound && two.upperBound <= three.lowerBound)
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let piped = capture.exchanges.prefix(3)
        #expect(
            piped.map { $0.target.hasSuffix("/r/p1") || $0.target.hasSuffix("/r/p2") || $0.target.hasSuffix("/r/p3") }
                == [true, true, true])
        #expect(Set(piped.map(\.connection)).count == 1)
        #expect(piped.allSatisfy { $0.outcome == .complete })
    }

    /// rangetap reads a request body whole before forwarding it and sends no `100 Continue` of its
    /// own: a client that sends its body after its wait (curl waits 1 s) gets the response.
    @Test func expectContinueBodyIsForwarded() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(request("ok", method: "POST", headers: ["Content-Length: 5", "Expect: 100-continue"]))
        // rangetap asks for the body at once (it reads it whole before forwarding).
        let interim = try client.readHead().latin1
        #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n", "\(interim)")
        try client.send("hello")
        var head = try client.readHead().latin1
        // The origin's own 100 Continue, if libcurl got one, is relayed as well.
        if head.hasPrefix("HTTP/1.1 100") { head = try client.readHead().latin1 }
        #expect(head.hasPrefix("HTTP/1.1 200 OK"), "\(head)")
        #expect(try client.read(count: 2).latin1 == "ok")
        #expect(try origin.request("ok").hasSuffix("\r\n\r\nhello"))
        client.close()
        try expectServes(proxy)
        let capture = try await finish(proxy)
        #expect(capture.exchanges.first?.outcome == .complete)
    }

    /// A client that leaves before its request is whole: nothing is forwarded, and the capture
    /// says the client left (not a 400).
    struct GoneEarly: Sendable, CustomTestStringConvertible {
        let name: String
        let sent: @Sendable (String) -> String
        /// Words of the `client` error, or nil when only the connection's close is recorded.
        let recorded: String?
        var testDescription: String { name }
        static let all = [
            GoneEarly(name: "after half a head", sent: { "GET http://\($0)/r/cut HTTP/1.1\r\nHo" }, recorded: nil),
            GoneEarly(
                name: "after the head",
                sent: { "POST http://\($0)/r/cut HTTP/1.1\r\nHost: \($0)\r\nContent-Length: 10\r\n\r\n" },
                recorded: "(0 of 10 bytes received)"),
            GoneEarly(
                name: "mid-body",
                sent: { "POST http://\($0)/r/cut HTTP/1.1\r\nHost: \($0)\r\nContent-Length: 10\r\n\r\nabc" },
                recorded: "(3 of 10 bytes received)"),
            GoneEarly(
                name: "at the last byte",
                sent: { "POST http://\($0)/r/cut HTTP/1.1\r\nHost: \($0)\r\nContent-Length: 10\r\n\r\n123456789" },
                recorded: "(9 of 10 bytes received)"),
        ]
    }

    @Test(arguments: GoneEarly.all)
    func aClientGoneBeforeItsRequestIsWholeIsRecordedAsLeaving(_ c: GoneEarly) async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(c.sent(authority))
        try await Task.sleep(for: .milliseconds(100))
        shutdown(client.fd, Int32(SHUT_WR))
        // A clean close, no answer: there is no one to read a 400.
        #expect(try client.readToClose().isEmpty)
        client.close()
        try expectServes(proxy)
        let capture = try await finish(proxy)
        // Its body's first bytes went on as they came (bodies stream); the origin never got it
        // whole: its connection ended with the body short (the raw origin keeps what it got).
        if c.name == "after the head" {
            #expect(
                !FileManager.default.fileExists(atPath: origin.directory + "/cut.req"),
                "a request whose body never began was forwarded")
        }
        if let got = try? origin.request("cut") {
            let body = got.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            #expect(body.utf8.count < 10, "the cut request reached the origin whole: \(got)")
        }
        let errs = errors(capture)
        #expect(!errs.contains { $0.kind == .badRequest || $0.status == 400 }, "\(errs.map(\.message))")
        if let words = c.recorded {
            let e = try #require(errs.first)
            #expect(e.kind == .client)
            let request = capture.events.compactMap { if case .request(let r) = $0 { r } else { nil } }.first
            #expect(
                request?.method == "POST" && e.exchange == request?.exchange,
                "the error is on the cut request's exchange")
            #expect(
                e.message.contains("closed the connection before its request body was whole \(words)"), "\(e.message)")
            // Before the body began nothing went on; after, its first bytes had.
            #expect(
                e.message.hasSuffix(
                    c.name == "after the head" ? "nothing was forwarded" : "rangetap stopped the request to the origin"),
                "\(e.message)")
        } else {
            #expect(errs.isEmpty)
            let close = capture.events.compactMap { if case .connectionClose(let e) = $0 { e } else { nil } }.first
            #expect(close?.by == .client)
            #expect(close?.requests == 0)
        }
    }

    /// A client that leaves mid-response (a player's cancel) is a `cancel`; one that reads all
    /// but the last byte and leaves is a cancel or an end, never a failure.
    @Test(arguments: [100, (1 << 20) - 1])
    func aClientGoneMidResponseIsACancel(readBytes: Int) async throws {
        let size = 1 << 20
        try origin.respond(
            "mb", with: "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n" + String(repeating: "x", count: size))
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(request("mb"))
        _ = try client.readHead()
        #expect(try client.read(count: readBytes).count == readBytes)
        client.close()
        try await Task.sleep(for: .milliseconds(100))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let ex = try #require(capture.exchanges.first)
        if readBytes < size / 2 {
            #expect(ex.outcome == .cancelled)
            #expect((ex.bytesDelivered ?? -1) >= Int64(readBytes))
        } else {
            #expect(ex.outcome == .cancelled || ex.outcome == .complete, "\(ex.outcome)")
        }
        #expect(errors(capture).isEmpty)
    }

    /// 200 players cancelling mid-body: every exchange is freed once settled (a leak here grows
    /// the proxy's memory with every cancel, as the soak showed).
    @Test func cancelledExchangesAreFreed() async throws {
        let size = 4 << 20
        try origin.respond(
            "big", with: "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n" + String(repeating: "x", count: size))
        let proxy = try await ProxyHarness()
        for _ in 0..<200 {
            let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
            try client.send(request("big"))
            _ = try client.readHead()
            _ = try client.read(count: 20_000)
            client.close()
        }
        for _ in 0..<250 where proxy.server.liveExchanges > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(
            proxy.server.liveExchanges == 0, "\(proxy.server.liveExchanges) of 200 cancelled exchanges are still held")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        #expect(capture.exchanges.filter { $0.outcome == .cancelled }.count == 200)
    }

    // MARK: Slowloris and many connections

    /// 200 connections sending a byte of their head a second do not stop a normal request; each
    /// is answered 408 and closed at `--head-timeout` (2 s here) and recorded as `head-timeout`.
    @Test func slowlorisConnectionsDoNotStopNormalRequestsAndTimeOut() async throws {
        let count = 200
        let proxy = try await ProxyHarness { $0.headTimeoutMs = 2000 }
        let slow = try (0..<count).map { _ in try RawClient(port: proxy.port, timeoutSeconds: 10) }
        let head = Array("GET \(origin.url("ok")) HTTP/1.1\r\nHost: \(authority)\r\n\r\n".utf8)
        for step in 0..<2 {
            for c in slow { try? c.send([head[step]]) }
            try expectServes(proxy)
            try await Task.sleep(for: .milliseconds(1000))
        }
        var answered = 0
        for c in slow {
            if try c.readToClose().latin1.hasPrefix("HTTP/1.1 408 Request Timeout\r\n") { answered += 1 }
        }
        #expect(answered == count)
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let timeouts = errors(capture).filter { $0.kind == .headTimeout }
        #expect(timeouts.count == count)
        #expect(timeouts.allSatisfy { $0.status == 408 && $0.message.contains("--head-timeout") })
    }

    /// 5,000 client connections open at once (15,000 descriptors in this process: both ends, and
    /// the duplicate of each accepted socket that `ClientWire` keeps to read `TCP_INFO`),
    /// each served a request; a new client is served meanwhile; all are released after.
    @Test func fiveThousandConcurrentConnections() async throws {
        let wanted = 5000
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let needed = rlim_t(3 * wanted + 1000)
        if limit.rlim_cur < needed {
            limit.rlim_cur = min(needed, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        // Documented in docs/reliability.md: 5,000 connections need RLIMIT_NOFILE >= 16,000.
        try #require(
            limit.rlim_cur >= needed,
            "RLIMIT_NOFILE is \(limit.rlim_cur) (hard \(limit.rlim_max)); 5,000 connections need \(needed)")
        let proxy = try await ProxyHarness()
        var clients: [RawClient] = []
        clients.reserveCapacity(wanted)
        for _ in 0..<wanted { clients.append(try RawClient(port: proxy.port, timeoutSeconds: 20)) }
        // Every connection asks; answers are read in batches so the origin sees at most 250 at once.
        var served = 0
        for start in stride(from: 0, to: wanted, by: 250) {
            let batch = clients[start..<min(wanted, start + 250)]
            for c in batch { try c.send(request("ok")) }
            for c in batch {
                let head = try c.readHead().latin1
                if head.hasPrefix("HTTP/1.1 200 OK"), try c.read(count: 2).latin1 == "ok" { served += 1 }
            }
        }
        #expect(served == wanted)
        #expect(proxy.server.openClientConnections >= wanted)
        try expectServes(proxy)
        for c in clients { c.close() }
        clients.removeAll()
        for _ in 0..<500 where proxy.server.openClientConnections > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(proxy.server.openClientConnections == 0)
        try expectServes(proxy)
        let capture = try await finish(proxy)
        #expect(capture.exchanges.filter { $0.outcome == .complete }.count == wanted + 2)
        #expect(capture.events("conn.open").count == wanted + 2)
    }

    // MARK: Upstream side

    /// Sends `GET /r/NAME` with `Connection: close` and reads to the close.
    func fetch(_ proxy: ProxyHarness, _ name: String, headers: [String] = []) throws -> String {
        try exchange(
            proxy,
            Array(
                request(name, headers: headers + ["Connection: close"]).unicodeScalars.map {
                    UInt8(truncatingIfNeeded: $0.value)
                }))
    }

    @Test func upstreamResetMidBodyClosesTheClientAndIsRecorded() async throws {
        try origin.respond("reset-mid", with: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nten bytes!")
        let proxy = try await ProxyHarness()
        let reply = try fetch(proxy, "reset-mid")
        // The head and the ten bytes, then a close: the client sees the body is short.
        #expect(reply == "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\nten bytes!")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .upstream && e.status == nil && e.received == 10)
        #expect(e.curlCode == 56 || e.curlCode == 18, "\(e.message)")
    }

    @Test func upstreamStallAfterTheHeadIsClosedAfterTheIdleTimeout() async throws {
        try origin.respond("stall", with: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nten bytes!")
        let proxy = try await ProxyHarness { $0.upstreamIdleTimeoutMs = 400 }
        #expect(try fetch(proxy, "stall").hasSuffix("\r\n\r\nten bytes!"))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .upstreamTimeout && e.curlCode == 28 && e.status == nil)
    }

    @Test func contentLengthLongerThanTheBodyIsAFailureNotAnEnd() async throws {
        try origin.respond("close-short", with: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nten bytes!")
        let proxy = try await ProxyHarness()
        #expect(try fetch(proxy, "close-short").hasSuffix("\r\n\r\nten bytes!"))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .upstream && e.curlCode == 18 && e.received == 10, "\(e.message)")
        guard case .failed = try #require(capture.exchanges.first).outcome else {
            Issue.record("a short body is not an end")
            return
        }
    }

    struct BadHead: Sendable, CustomTestStringConvertible {
        let name: String
        let response: @Sendable () -> String
        let says: String
        var testDescription: String { name }
        static let all = [
            BadHead(
                name: "10 MB header line",
                response: {
                    "HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "b", count: 10 << 20))\r\nContent-Length: 2\r\n\r\nok"
                }, says: "larger than libcurl accepts"),
            BadHead(
                name: "100,000 headers",
                response: {
                    "HTTP/1.1 200 OK\r\n" + String(repeating: "X-A: b\r\n", count: 100_000)
                        + "Content-Length: 2\r\n\r\nok"
                }, says: "larger than libcurl accepts"),
            BadHead(
                name: "invalid status line", response: { "HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\nok" },
                says: "curl error 1"),
        ]
    }

    @Test(arguments: BadHead.all)
    func anUpstreamHeadLibcurlRefusesGets502NamingIt(_ c: BadHead) async throws {
        try origin.respond("bad", with: c.response())
        let proxy = try await ProxyHarness()
        let (status, body) = parse(try fetch(proxy, "bad"))
        #expect(status == 502)
        #expect(body.contains(c.says), "\(body)")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .upstream && e.status == 502 && e.message.contains(c.says))
    }

    @Test func closeDelimitedBodyIsRelayedAndEnds() async throws {
        try origin.respond("close-cd", with: "HTTP/1.1 200 OK\r\n\r\nhello world")
        let proxy = try await ProxyHarness()
        #expect(try fetch(proxy, "close-cd").hasSuffix("\r\n\r\nhello world"))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let ex = try #require(capture.exchanges.first)
        #expect(ex.outcome == .complete && ex.bytesReceived == 11)
        #expect(try capture.body(of: ex) == Data("hello world".utf8))
    }

    @Test func repeatedInterimResponsesAreRelayedAndRecorded() async throws {
        try origin.respond(
            "hints",
            with: String(repeating: "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n", count: 5)
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let proxy = try await ProxyHarness()
        let reply = try fetch(proxy, "hints")
        #expect(reply.components(separatedBy: "HTTP/1.1 103 Early Hints\r\n").count - 1 == 5)
        #expect(reply.hasSuffix("\r\n\r\nok"))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        #expect(capture.events("interim").count == 5)
        #expect(capture.exchanges.first?.outcome == .complete)
    }

    @Test func gzipBodyIsRecordedAndRelayedAsSent() async throws {
        // gzip of "hello, gzip body\n" (mtime 0).
        let gz: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 215, 81, 72, 175, 202, 44, 80, 72, 202, 79, 169,
            228, 2, 0, 144, 238, 82, 175, 17, 0, 0, 0,
        ]
        try origin.respond(
            "gz", with: "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(gz.count)\r\n\r\n" + gz.latin1)
        let proxy = try await ProxyHarness()
        let reply = try fetch(proxy, "gz", headers: ["Accept-Encoding: gzip"])
        #expect(reply.hasSuffix("\r\n\r\n" + gz.latin1))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let ex = try #require(capture.exchanges.first)
        #expect(try capture.body(of: ex) == Data(gz))
        #expect(ex.bytesReceived == Int64(gz.count))
    }

    // MARK: Target checks

    @Test(arguments: [
        "ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1:70/x", "dict://127.0.0.1:2628/d:x",
        "scp://127.0.0.1/x",
    ])
    func onlyHTTPTargetsAreFetched(target: String) async throws {
        let proxy = try await ProxyHarness()
        let (status, body) = parse(
            try exchange(proxy, Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)))
        #expect(status == 400)
        #expect(body.contains("cannot forward request target \"\(target)\""), "\(body)")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .refused && e.status == 400)
    }

    @Test func userinfoIsSentAsBasicAuthAndNotRecordedInClear() async throws {
        let proxy = try await ProxyHarness()
        let reply = try exchange(
            proxy,
            Array(
                "GET http://user:hunter2@\(authority)/r/ok HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n"
                    .utf8))
        #expect(parse(reply).status == 200)
        #expect(try origin.request("ok").contains("\r\nAuthorization: Basic dXNlcjpodW50ZXIy\r\n"))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let events = try String(contentsOfFile: proxy.capturePath + "/events.jsonl", encoding: .utf8)
        #expect(!events.contains("hunter2"))
        #expect(capture.exchanges.first?.target.contains("user:<redacted>@") == true)
    }

    @Test func anIPv6LiteralTargetIsFetched() async throws {
        let closed = try freePort()
        let proxy = try await ProxyHarness()
        let (status, body) = parse(
            try exchange(
                proxy,
                Array(
                    "GET http://[::1]:\(closed)/x HTTP/1.1\r\nHost: [::1]:\(closed)\r\nConnection: close\r\n\r\n".utf8))
        )
        // Nothing listens on [::1]: libcurl tried it (no parse error, no refusal).
        #expect(status == 502)
        #expect(body.contains("::1") && body.contains("curl error 7"), "\(body)")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .upstream && e.curlCode == 7)
        #expect(capture.exchanges.first?.url == "http://[::1]:\(closed)/x")
    }

    @Test func aRequestToTheProxyItselfIsALoop() async throws {
        let proxy = try await ProxyHarness()
        let (status, body) = parse(
            try exchange(
                proxy,
                Array("GET http://127.0.0.1:\(proxy.port)/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)))
        #expect(status == 508)
        #expect(body.contains("points back at rangetap itself"))
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .refused && e.status == 508)
    }

    @Test func connectToAClosedPortGets502() async throws {
        let closed = try freePort()
        let proxy = try await ProxyHarness()
        let (status, body) = parse(
            try exchange(proxy, Array("CONNECT 127.0.0.1:\(closed) HTTP/1.1\r\nHost: 127.0.0.1:\(closed)\r\n\r\n".utf8))
        )
        #expect(status == 502)
        #expect(
            body.contains("cannot connect to 127.0.0.1:\(closed)") && body.contains("Connection refused"), "\(body)")
        try expectServes(proxy)
        let capture = try await finish(proxy)
        let e = try #require(errors(capture).first)
        #expect(e.kind == .upstream && e.status == 502)
        #expect(capture.exchanges.first?.method == "CONNECT")
    }

    // MARK: Process faults

    /// `rangetap record` killed with SIGKILL in the middle of a 1 GiB transfer (cut once 64 MiB
    /// are on disk): every reader handles the cut capture, none traps or hangs.
    @Test func sigkillDuringALargeTransferLeavesACaptureEveryReaderHandles() async throws {
        let www = Paths.temporaryDirectory("www")
        let big = FileManager.default.createFile(atPath: www + "/big.bin", contents: nil)
        try #require(big)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: www + "/big.bin"))
        try handle.truncate(atOffset: 1 << 30)  // sparse: 1 GiB of zeros
        try handle.close()
        let nginx = try NginxServer(root: www)
        let port = try freePort()
        let path = Paths.temporaryDirectory("sigkill") + "/cut.rtap"
        let recorder = try TestProcess(Paths.rangetap, ["record", "--listen", "127.0.0.1:\(port)", "-o", path])
        try waitForPort(port)
        let client = try TestProcess(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", nginx.url("big.bin"), "-o", "/dev/null"])
        let deadline = Date().addingTimeInterval(60)
        var size: UInt64 = 0
        while size < 64 << 20 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            size = ((try? FileManager.default.attributesOfItem(atPath: path + "/body.bin"))?[.size] as? UInt64) ?? 0
        }
        try #require(size >= 64 << 20, "only \(size) bytes recorded")
        kill(recorder.pid, SIGKILL)
        recorder.stop()
        client.stop()
        for args in [
            ["inspect", path], ["inspect", path, "--json"], ["summary", path],
            ["export", path, "--har", path + ".har", "--html", path + ".html"], ["replay", path, "--cache", "sparse"],
        ] {
            let r = try runCommand(Paths.rangetap, args, timeout: 120)
            #expect(
                r.status == 0 || (args[0] == "replay" && r.status == 1),
                "\(args.joined(separator: " ")): status \(r.status): \(r.stderr.suffix(500))")
            #expect(!r.stderr.contains("Fatal error"))
        }
        let summary = try runCommand(Paths.rangetap, ["summary", path])
        #expect(summary.text.contains("1 exchanges"), "\(summary.text)")
        // What the capture vouches for: the chunks whose events reached events.jsonl before the
        // kill. body.bin may hold a little more (bytes written before their event), which no
        // reader may serve as recorded.
        let json = try runCommand(Paths.rangetap, ["inspect", path, "--json"], timeout: 120)
        let report = try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any]
        let received = try #require(
            ((report?["exchanges"] as? [[String: Any]])?.first?["bytesReceived"] as? NSNumber)?.intValue)
        #expect(received >= 32 << 20, "the capture vouches for \(received) bytes; body.bin had \(size) at the kill")
        let har =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".har")))
            as? [String: Any]
        #expect((har?["log"] as? [String: Any])?["entries"] as? [Any] != nil)
        // serve: the cut capture as an origin. --ideal answers a range of the recorded bytes;
        // --faithful replays the cut response (its recorded bytes, then a close).
        for (mode, range, expected) in [
            (["--ideal"], ["-r", "0-99"], "206 100"), (["--faithful", "--speed", "0"], [], "200 "),
        ] {
            let servePort = try freePort()
            let server = try TestProcess(
                Paths.rangetap, ["serve", path] + mode + ["--listen", "127.0.0.1:\(servePort)"])
            try waitForPort(servePort)
            let r = try runCommand(
                try Paths.tool("curl"),
                ["-s", "--noproxy", "", "--max-time", "60", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"]
                    + range + ["http://127.0.0.1:\(servePort)/big.bin"], timeout: 90)
            #expect(r.text.hasPrefix(expected), "serve \(mode) answered \(r.text)")
            if mode[0] == "--faithful" {
                #expect(
                    r.text.split(separator: " ").last.flatMap { Int($0) } == received,
                    "serve --faithful sent \(r.text); the capture vouches for \(received) bytes")
            }
            server.stop(signal: SIGINT)
            #expect(!server.process.isRunning)
            #expect(!server.stderrText.contains("Fatal error"))
        }
        nginx.stop()
    }

    @Test(arguments: ["existing", "under a file", "in /proc"])
    func anUnusableOutputPathIsRefusedBeforeListening(_ kind: String) throws {
        let dir = Paths.temporaryDirectory("out")
        let path: String, says: String
        switch kind {
        case "existing":
            path = dir + "/old.rtap"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Data("{}\n".utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
            says = "it already exists and is not an empty directory"
        case "under a file":
            try Data().write(to: URL(fileURLWithPath: dir + "/file"))
            path = dir + "/file/x.rtap"
            says = "\(dir)/file is not a directory"
        default:
            path = "/proc/rangetap-\(UUID().uuidString.prefix(8)).rtap"
            says = "cannot make the directory \(path): No such file or directory"
        }
        let port = try freePort()
        let r = try runCommand(Paths.rangetap, ["record", "--listen", "127.0.0.1:\(port)", "-o", path], timeout: 20)
        #expect(r.status == 2)
        #expect(r.stderr.contains("cannot create capture \(path): \(says)"), "\(r.stderr)")
        if kind == "existing" {
            #expect(try String(contentsOfFile: path + "/events.jsonl", encoding: .utf8) == "{}\n", "left untouched")
        }
    }

    // MARK: Corrupt captures, every reader

    struct Corruption: Sendable, CustomTestStringConvertible {
        let name: String
        /// Damages the capture at the path.
        let apply: @Sendable (String) throws -> Void
        /// nil: every reader succeeds and says the capture is incomplete; else the words of the
        /// error every reader stops with (status 2).
        let error: String?
        var testDescription: String { name }

        static func editLines(_ path: String, _ edit: (inout [String]) -> Void, trailingNewline: Bool = true) throws {
            let file = path + "/events.jsonl"
            var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
            edit(&lines)
            try Data((lines.joined(separator: "\n") + (trailingNewline ? "\n" : "")).utf8).write(
                to: URL(fileURLWithPath: file))
        }

        static let all = [
            Corruption(
                name: "truncated last line",
                apply: { p in
                    try editLines(p, { $0[$0.count - 1] = String($0[$0.count - 1].prefix(20)) }, trailingNewline: false)
                }, error: nil),
            Corruption(
                name: "garbage line", apply: { p in try editLines(p) { $0.insert("\u{1}garbage{{{", at: 4) } },
                error: "events.jsonl line 5 is not a valid event: not valid JSON"),
            Corruption(
                name: "wrong types",
                apply: { p in
                    try editLines(p) { $0[4] = $0[4].replacingOccurrences(of: "\"size\":4", with: "\"size\":\"four\"") }
                }, error: "field \"size\" must be a whole number, found \"four\""),
            Corruption(
                name: "body.bin shorter than the events claim",
                apply: { p in try Data([1, 2]).write(to: URL(fileURLWithPath: p + "/body.bin")) },
                error: "reaches past the end of body.bin (2 bytes)"),
            Corruption(
                name: "empty directory",
                apply: { p in
                    for f in ["events.jsonl", "body.bin"] { try FileManager.default.removeItem(atPath: p + "/" + f) }
                }, error: "it has no readable events.jsonl"),
            Corruption(
                name: "a file instead of a directory",
                apply: { p in
                    try FileManager.default.removeItem(atPath: p)
                    try Data("not a capture\n".utf8).write(to: URL(fileURLWithPath: p))
                }, error: "it has no readable events.jsonl"),
        ]
    }

    @Test(arguments: Corruption.all)
    func everyReaderHandlesACorruptCapture(_ c: Corruption) throws {
        let capture = try HostileCapture([.ok])
        defer { capture.remove() }
        try c.apply(capture.path)
        let out = capture.path + ".out"
        let readers: [[String]] = [
            ["inspect"], ["inspect", "--json"], ["summary"],
            ["export", "--har", out + ".har", "--html", out + ".html"], ["replay", "--cache", "sparse"],
        ]
        for reader in readers {
            let r = try runCommand(Paths.rangetap, [reader[0], capture.path] + reader.dropFirst(), timeout: 60)
            let label = reader.joined(separator: " ")
            #expect(!r.stderr.contains("Fatal error"), "\(label)")
            if let error = c.error {
                #expect(r.status == 2, "\(label): \(r.status)")
                #expect(r.stderr.contains(error), "\(label): \(r.stderr)")
            } else {
                #expect(r.status == 0, "\(label): \(r.status) \(r.stderr)")
                let said = r.text + r.stderr
                #expect(
                    said.contains("incomplete") || said.contains("\"truncatedTail\" : true"),
                    "\(label) gave no warning: \(said.suffix(300))")
            }
        }
    }
}
