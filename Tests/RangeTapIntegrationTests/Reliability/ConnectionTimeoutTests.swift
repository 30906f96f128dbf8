import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `--idle-timeout` and `--body-timeout` (issue 37, item 10): silent connections were never
/// closed (10,200 of them took all 20,000 descriptors) and a complete head followed by a body
/// that never came escaped `--head-timeout`. Raw sockets and a Python h2 client against nginx
/// through the proxy, with short limits; the capture and nginx's log are the truth.
@Suite(.serialized)
struct ConnectionTimeoutTests {
    let nginx: NginxServer

    init() throws {
        let dir = Paths.temporaryDirectory("timeout-www")
        try Data(repeating: 5, count: 1 << 20).write(to: URL(fileURLWithPath: dir + "/m.bin"))
        try Data("ok".utf8).write(to: URL(fileURLWithPath: dir + "/ok.txt"))
        nginx = try NginxServer(root: dir)
    }

    func closes(_ capture: RecordedCapture) -> [ConnectionCloseEvent] {
        capture.events("conn.close").compactMap { if case .connectionClose(let e) = $0 { e } else { nil } }
    }

    @Test(.timeLimit(.minutes(1))) func aSilentConnectionAndAnIdleKeepAliveOneAreClosed() async throws {
        let proxy = try await ProxyHarness { $0.idleTimeoutMs = 300 }
        let silent = try RawClient(port: proxy.port)
        let kept = try RawClient(port: proxy.port)
        try kept.send("GET \(nginx.url("ok.txt")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // The response, then the proxy's close once the connection was idle.
        let answer = try kept.readToClose().latin1
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.hasSuffix("\r\n\r\nok"), "\(answer)")
        #expect(try silent.readToClose().isEmpty)
        let capture = try await proxy.stopAndRead()
        #expect(closes(capture).count == 2 && closes(capture).allSatisfy { $0.by == .proxy }, "\(closes(capture))")
        #expect(capture.requests.first?.outcome == .complete)
    }

    @Test(.timeLimit(.minutes(1))) func aResponseInFlightIsNotIdle() async throws {
        let proxy = try await ProxyHarness { $0.idleTimeoutMs = 200 }
        // About 4 s of reading at 256 KiB/s, twenty idle limits: the exchange is in flight throughout.
        let r = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", proxy.url, "--limit-rate", "256K", "-o", "/dev/null", "-w",
                "%{http_code} %{size_download}", nginx.url("m.bin"),
            ])
        #expect(r.text == "200 1048576", "\(r.text) \(r.stderr)")
        let capture = try await proxy.stopAndRead()
        #expect(capture.requests.first?.outcome == .complete)
    }

    /// A body that stops after its first bytes: they went on to the origin as they came (request
    /// bodies stream), the origin (which waits for the whole body) never gets a whole request,
    /// and the client gets the 408. A body that never begins is never forwarded at all.
    @Test(.timeLimit(.minutes(1))) func aStalledRequestBodyIsAnswered408AndTheOriginNeverGetsItWhole() async throws {
        let sink = try SinkOrigin()
        defer { sink.stop() }
        let proxy = try await ProxyHarness { $0.bodyTimeoutMs = 300 }
        let client = try RawClient(port: proxy.port)
        try client.send("POST \(sink.url("begun")) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc")
        let answer = try client.readToClose().latin1
        #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(answer)")
        #expect(
            answer.contains("--body-timeout") && answer.contains("3 of 100 bytes")
                && answer.contains("stopped the request to the origin"), "\(answer)")
        #expect(sink.waitForTotal(3) == 3, "the body's first bytes went on as they came")
        let silent = try RawClient(port: proxy.port)
        try silent.send("POST \(sink.url("never")) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n")
        let second = try silent.readToClose().latin1
        #expect(
            second.hasPrefix("HTTP/1.1 408 Request Timeout\r\n") && second.contains("forwarded nothing"), "\(second)")
        #expect(sink.completed.isEmpty, "the origin got a whole request: \(sink.completed)")
        #expect(sink.total == 3)
        let capture = try await proxy.stopAndRead()
        let errors = capture.events("error").compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(
            errors.count == 2
                && errors.allSatisfy { $0.kind == .bodyTimeout && $0.status == 408 && $0.exchange != nil }, "\(errors)")
        #expect(capture.requests.count == 2, "both requests are recorded")
    }

    /// An opaque tunnel (`--no-intercept`) that carries nothing either way for `--idle-timeout`
    /// is closed, both its sides; one that carries a request in time is not (issue 37: tunnels
    /// had no idle limit).
    @Test(.timeLimit(.minutes(1))) func aSilentOpaqueTunnelIsClosedAndABusyOneIsNot() async throws {
        let proxy = try await ProxyHarness {
            $0.idleTimeoutMs = 400
            $0.noIntercept = [HostPattern("*")!]
        }
        let silent = try RawClient(port: proxy.port)
        try silent.send("CONNECT 127.0.0.1:\(nginx.port) HTTP/1.1\r\nHost: 127.0.0.1:\(nginx.port)\r\n\r\n")
        #expect(try silent.readHead().latin1.hasPrefix("HTTP/1.1 200"))
        let busy = try RawClient(port: proxy.port)
        try busy.send("CONNECT 127.0.0.1:\(nginx.port) HTTP/1.1\r\nHost: 127.0.0.1:\(nginx.port)\r\n\r\n")
        #expect(try busy.readHead().latin1.hasPrefix("HTTP/1.1 200"))
        // Four requests 200 ms apart (half the limit) through the busy one.
        for _ in 0..<4 {
            try await Task.sleep(for: .milliseconds(200))
            try busy.send("GET /ok.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try busy.readHead().latin1.hasPrefix("HTTP/1.1 200"))
            #expect(try busy.read(count: 2).latin1 == "ok")
        }
        #expect(try silent.readToClose().isEmpty, "the silent tunnel is closed")
        busy.close()
        let capture = try await proxy.stopAndRead()
        let tunnels = capture.events("tunnel").compactMap { if case .tunnel(let t) = $0 { t } else { nil } }
        #expect(tunnels.count == 2 && tunnels.contains { $0.up == 0 && $0.down == 0 }, "\(tunnels)")
        #expect(nginx.accessLog().count == 4)
    }

    @Test(.timeLimit(.minutes(1))) func anIdleHTTP2ConnectionGetsGOAWAYAndAClose() async throws {
        let proxy = try await ProxyHarness { $0.idleTimeoutMs = 300 }
        let client = try RawClient(port: proxy.port)
        // The h2c preface and an empty SETTINGS frame, then nothing.
        try client.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0])
        let bytes = try client.readToClose()
        var types: [UInt8] = []
        var goAwayError: UInt32?
        var i = 0
        while i + 9 <= bytes.count {
            let length = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            types.append(bytes[i + 3])
            if bytes[i + 3] == 7, i + 9 + 8 <= bytes.count {
                goAwayError = bytes[(i + 13)..<(i + 17)].reduce(0) { $0 << 8 | UInt32($1) }
            }
            i += 9 + length
        }
        #expect(
            types.contains(7) && goAwayError == 0,
            "frames \(types) in \(bytes.count) bytes: a GOAWAY with NO_ERROR before the close")
        let capture = try await proxy.stopAndRead()
        #expect(closes(capture).first?.by == .proxy)
    }

    @Test(.timeLimit(.minutes(1))) func aStalledHTTP2BodyResetsItsStreamOnly() async throws {
        let sink = try SinkOrigin()
        defer { sink.stop() }
        let proxy = try await ProxyHarness { $0.bodyTimeoutMs = 300 }
        let r = try runCommand(
            try Paths.tool("python3"),
            [
                Paths.root + "/Tests/Clients/h2_stalled_body.py",
                "--proxy", "127.0.0.1:\(proxy.port)", "--authority", "127.0.0.1:\(sink.port)", "--path", "/up",
                "--declared", "100", "--send", "3", "--then", "/then", "--wait", "10",
            ], timeout: 30)
        try #require(r.status == 0, "\(r.stderr)")
        struct Out: Decodable {
            struct Stalled: Decodable {
                var status: Int?
                var reset: Int?
            }
            struct Then: Decodable {
                var status: Int?
                var bytes: Int
            }
            var stalled: Stalled
            var then: Then
            var goaway: Bool
        }
        let out = try JSONDecoder().decode(Out.self, from: r.stdout)
        #expect(out.stalled.status == 408 && out.stalled.reset == 0, "\(r.text)")
        #expect(out.then.status == 200 && out.then.bytes == 5 && !out.goaway, "the connection serves on: \(r.text)")
        #expect(
            sink.completed == ["GET /then 0"], "only the second request reached the origin whole: \(sink.completed)")
        #expect(sink.total == 3, "the stalled body's 3 bytes went on as they came")
        let capture = try await proxy.stopAndRead()
        let errors = capture.events("error").compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errors.map(\.kind) == [.bodyTimeout], "\(errors)")
    }
}
