import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapTestSupport
import Testing

/// Issue "Reliability", findings 2–5, each checked at the wire: exchanges are freed, a huge body
/// is refused before it is read, stalls time out with a clear answer, a full disk stops
/// recording without misplacing a byte. After each, the proxy still serves a normal request.
@Suite(.serialized)
struct ReliabilityFixesTests {
    let origin: RawOrigin

    init() throws {
        origin = try RawOrigin()
    }

    func get(_ name: String, headers: [String] = []) -> String {
        (["GET \(origin.url(name)) HTTP/1.1", "Host: 127.0.0.1:\(origin.port)"] + headers + ["", ""]).joined(
            separator: "\r\n")
    }

    /// A normal request through `proxy` still works.
    func expectServes(_ proxy: ProxyHarness) throws {
        try origin.respond("ok", with: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let client = try RawClient(port: proxy.port)
        try client.send(get("ok"))
        #expect(try client.readHead().latin1.hasPrefix("HTTP/1.1 200 OK"))
        #expect(try client.read(count: 2).latin1 == "ok")
    }

    @Test func exchangesAreFreedOnceEnded() async throws {
        try origin.respond("small", with: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        let proxy = try await ProxyHarness()
        let r = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", "-w", "%{http_code}\n",
                origin.url("small") + "?[1-2000]",
            ], timeout: 120)
        #expect(r.text.split(separator: "\n").count == 2000)
        // Settling waits for the client's acknowledgements: give it a moment, bounded.
        for _ in 0..<100 where proxy.server.liveExchanges > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(proxy.server.liveExchanges == 0, "\(proxy.server.liveExchanges) of 2000 exchanges are still held")
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.filter { $0.outcome == .complete }.count == 2000)
    }

    @Test func aSlowHeadIsAnsweredWith408AndRecorded() async throws {
        let proxy = try await ProxyHarness { $0.headTimeoutMs = 300 }
        let slow = try RawClient(port: proxy.port)
        try slow.send("GET \(origin.url("ok")) HTTP/1.1\r\nHost: 127.0")
        let reply = try slow.readToClose().latin1
        #expect(reply.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(reply)")
        #expect(reply.contains("--head-timeout"))
        try expectServes(proxy)
        let capture = try await proxy.stopAndRead()
        let error = try #require(capture.events.compactMap { if case .error(let e) = $0 { e } else { nil } }.first)
        #expect(error.kind == .headTimeout)
        #expect(error.status == 408)
        #expect(try MediaAnalysis.analyze(path: proxy.capturePath).exchanges.count == 1)
    }

    @Test func anOriginSilentBeforeItsHeadGets504() async throws {
        try origin.respond("silent", with: "")
        let proxy = try await ProxyHarness { $0.upstreamIdleTimeoutMs = 500 }
        let client = try RawClient(port: proxy.port)
        try client.send(get("silent", headers: ["Connection: close"]))
        let reply = try client.readToClose().latin1
        #expect(reply.hasPrefix("HTTP/1.1 504 Gateway Timeout\r\n"), "\(reply)")
        #expect(reply.contains("--upstream-idle-timeout"))
        try expectServes(proxy)
        let capture = try await proxy.stopAndRead()
        let error = try #require(
            capture.events.compactMap { if case .error(let e) = $0, e.exchange != nil { e } else { nil } }.first)
        #expect(error.kind == .upstreamTimeout)
        #expect(error.status == 504)
    }

    @Test func anOriginSilentAfterItsHeadIsClosedAndRecorded() async throws {
        try origin.respond("stall", with: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
        let proxy = try await ProxyHarness { $0.upstreamIdleTimeoutMs = 500 }
        let client = try RawClient(port: proxy.port)
        try client.send(get("stall"))
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        // The ten bytes, then a clean close: the client can tell the body is short.
        #expect(try client.readToClose().latin1 == "only ten b")
        try expectServes(proxy)
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        guard case .failed(let message) = ex.outcome else {
            Issue.record("expected a failure, got \(ex.outcome)")
            return
        }
        #expect(message.contains("no data from upstream"))
        #expect(ex.bytesReceived == 10)
    }

    /// A client that sends its first tunnel bytes in the same segment as its CONNECT gets them
    /// relayed at once, not when it writes again.
    @Test func connectWithEarlyDataIsRelayedAtOnce() async throws {
        try origin.respond("ok", with: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 5)
        try client.send(
            "CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\nGET /r/ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        )
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 Connection Established\r\n\r\n")
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n")
        #expect(try client.read(count: 2).latin1 == "ok")
        client.close()
        try expectServes(proxy)
        await proxy.server.stop()
    }

    /// A 3 MB tmpfs fills during an 8 MB response: the client still gets every byte, recording
    /// stops with a clear error, and the capture holds no line that points at missing or wrong bytes.
    @Test func aFullDiskStopsRecordingButNotForwarding() async throws {
        let mountPoint = Paths.temporaryDirectory("tmpfs")
        let mounted = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "mounting a tmpfs needs root: \(mounted.stderr)")
        defer { _ = try? runCommand("/bin/umount", ["-l", mountPoint]) }
        var body = [UInt8](repeating: 0, count: 8 << 20)
        for i in body.indices { body[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i >> 9) }
        try origin.respond("big", with: "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n" + body.latin1)
        let proxy = try await ProxyHarness { $0.capturePath = mountPoint + "/full.rtap" }
        let client = try RawClient(port: proxy.port)
        try client.send(get("big"))
        _ = try client.readHead()
        let got = try client.read(count: body.count)
        #expect(got == body)
        client.close()
        try expectServes(proxy)
        let error = try #require(proxy.server.captureWriteError)
        #expect("\(error)".contains("No space left on device"))
        let capture = try await proxy.stopAndRead()
        // Every chunk the capture kept points at exactly the bytes that arrived at that offset.
        for ex in capture.exchanges {
            for c in ex.chunks {
                let bytes = try capture.reader.bytes(of: c)
                #expect(Array(bytes) == Array(body[Int(c.offset)..<Int(c.offset) + c.size]), "chunk at \(c.offset)")
            }
        }
        #expect(capture.exchanges.first.map { $0.chunks.reduce(0) { $0 + $1.size } < body.count } == true)
    }
}
