import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The origin gets the request the client sent (issue 37, item 12), checked in nginx's own log
/// of what it received: a GET with a body stays a GET (it reached the origin as a POST while the
/// capture said GET); a request with a body and no Content-Type gets none (libcurl added
/// `application/x-www-form-urlencoded` to every HTTP/2 one); header bytes over 0x7F go out as
/// they came (`FF FE` became `C3 BF C3 BE`); an HTTP/2 `content-length` its DATA does not match,
/// and an `:authority` that would change the path, are refused, not forwarded.
@Suite(.serialized)
struct RequestTruthTests {
    let nginx: NginxServer
    let log: String

    init() throws {
        let dir = Paths.temporaryDirectory("truth-www")
        try Data("ok".utf8).write(to: URL(fileURLWithPath: dir + "/ok.txt"))
        log = Paths.temporaryDirectory("truth-log") + "/seen.log"
        nginx = try NginxServer(
            root: dir,
            extraHTTPConfig: """
                log_format seen '$request_method $uri ct="$http_content_type" xb="$http_x_b" len=$request_length';
                access_log \(log) seen;
                """)
    }

    /// nginx's lines of what it received, waited for up to 3 s.
    func seen(count: Int) -> [String] {
        for _ in 0..<60 {
            let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
                String.init)
            if lines.count >= count { return lines }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    struct H2Out: Decodable {
        var status: Int?
        var body: String
        var reset: Int?
    }

    func h2(_ proxy: ProxyHarness, _ args: [String]) throws -> H2Out {
        let r = try runCommand(
            try Paths.tool("python3"),
            [Paths.root + "/Tests/Clients/h2_request.py", "--proxy", "127.0.0.1:\(proxy.port)"] + args)
        try #require(r.status == 0, "\(r.stderr)")
        return try JSONDecoder().decode(H2Out.self, from: r.stdout)
    }

    @Test func anHTTP11RequestReachesTheOriginAsSent() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port)
        // A GET with a body, no Content-Type, and a field value with bytes over 0x7F.
        try client.send(
            Array("GET \(nginx.url("ok.txt")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-B: ".utf8) + [0xFF, 0xFE]
                + Array("\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc".utf8))
        let answer = try client.readToClose().latin1
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        let line = try #require(seen(count: 1).first)
        #expect(line.hasPrefix("GET /ok.txt "), "the origin saw \(line)")
        #expect(line.contains("ct=\"-\""), "a Content-Type the client never sent: \(line)")
        #expect(line.contains("xb=\"\\xFF\\xFE\""), "the field's bytes were changed: \(line)")
        let capture = try await proxy.stopAndRead()
        #expect(capture.requests.first?.method == "GET")
    }

    @Test func anHTTP2RequestReachesTheOriginAsSent() async throws {
        let proxy = try await ProxyHarness()
        let out = try h2(
            proxy,
            [
                "--authority", "127.0.0.1:\(nginx.port)", "--path", "/ok.txt", "--method", "GET", "--declared", "3",
                "--body", "3",
            ])
        #expect(out.status == 200, "\(out)")
        let line = try #require(seen(count: 1).first)
        #expect(line.hasPrefix("GET /ok.txt ") && line.contains("ct=\"-\""), "the origin saw \(line)")
        _ = try await proxy.stopAndRead()
    }

    /// NIOHPACK decodes an HTTP/2 field value as UTF-8: bytes that are not UTF-8 arrive as U+FFFD
    /// and went to the origin as `EF BF BD`. Such a request is refused, nothing forwarded; a
    /// value in valid UTF-8 goes out byte for byte.
    @Test func anHTTP2FieldWithBytesThatAreNotUTF8IsRefusedAndUTF8PassesAsSent() async throws {
        let proxy = try await ProxyHarness()
        let bad = try h2(
            proxy, ["--authority", "127.0.0.1:\(nginx.port)", "--path", "/ok.txt", "--header", "x-b=\\xff\\xfe"])
        #expect(bad.status == 400 && bad.body.contains("x-b") && bad.body.contains("not UTF-8"), "\(bad)")
        let good = try h2(
            proxy, ["--authority", "127.0.0.1:\(nginx.port)", "--path", "/ok.txt", "--header", "x-b=caf\\xc3\\xa9"])
        #expect(good.status == 200, "\(good)")
        let lines = seen(count: 1)
        #expect(
            lines.count == 1 && lines[0].contains("xb=\"caf\\xC3\\xA9\""),
            "only the UTF-8 one reached nginx, as sent: \(lines)")
        let capture = try await proxy.stopAndRead()
        let refusals = capture.events("error").compactMap {
            if case .error(let e) = $0, e.kind == .refused { e } else { nil }
        }
        #expect(refusals.count == 1 && refusals.first?.status == 400, "\(refusals)")
    }

    @Test func malformedHTTP2RequestsAreRefusedNotForwarded() async throws {
        let proxy = try await ProxyHarness()
        let short = try h2(
            proxy,
            [
                "--authority", "127.0.0.1:\(nginx.port)", "--path", "/ok.txt", "--method", "POST", "--declared", "10",
                "--body", "3",
            ])
        #expect(short.status == 400 && short.body.contains("content-length 10"), "\(short)")
        // Short, but only once forwarding had begun (the first DATA frame agreed so far): the
        // upload is stopped at the origin and the client answered 400 (it was never answered).
        // (To the sink origin, which waits for a body's end before it answers.)
        let sink = try SinkOrigin()
        defer { sink.stop() }
        let late = try h2(
            proxy,
            [
                "--authority", "127.0.0.1:\(sink.port)", "--path", "/late", "--method", "POST", "--declared", "20",
                "--body", "15", "--split", "10",
            ])
        #expect(
            late.status == 400 && late.body.contains("content-length 20")
                && late.body.contains("stopped the request to the origin"), "\(late)")
        #expect(sink.completed.isEmpty, "the origin got the short body as whole: \(sink.completed)")
        let evil = try h2(proxy, ["--authority", "127.0.0.1:\(nginx.port)/evil?", "--path", "/ok.txt"])
        #expect(evil.status == 400 && evil.body.contains(":authority"), "\(evil)")
        // The connection-level check is per stream: a good request still goes through.
        let good = try h2(proxy, ["--authority", "127.0.0.1:\(nginx.port)", "--path", "/ok.txt"])
        #expect(good.status == 200)
        #expect(seen(count: 1).count == 1, "only the good request reached nginx: \(seen(count: 1))")
        let capture = try await proxy.stopAndRead()
        let refusals = capture.events("error").compactMap {
            if case .error(let e) = $0, e.kind == .refused { e } else { nil }
        }
        #expect(refusals.count == 2 && refusals.allSatisfy { $0.status == 400 }, "\(refusals)")
        let stopped = capture.events("error").compactMap {
            if case .error(let e) = $0, e.kind == .badRequest { e } else { nil }
        }
        #expect(stopped.count == 1 && stopped.first?.status == 400, "\(stopped)")
    }
}
