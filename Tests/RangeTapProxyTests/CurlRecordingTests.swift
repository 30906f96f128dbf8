import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// curl through the proxy against nginx: full GET, ranges, a client that stops early, keep-alive.
@Suite(.serialized)
struct CurlRecordingTests {
    let dir: String
    let file: Data
    let nginx: NginxServer

    init() throws {
        dir = Paths.temporaryDirectory("www")
        var bytes = [UInt8](repeating: 0, count: 24 << 20)
        var x: UInt32 = 0x1234_5678
        for i in bytes.indices {
            x = x &* 1_664_525 &+ 1_013_904_223
            bytes[i] = UInt8(truncatingIfNeeded: x >> 24)
        }
        file = Data(bytes)
        try file.write(to: URL(fileURLWithPath: dir + "/big.bin"))
        nginx = try NginxServer(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    @Test func fullGetIsForwardedAndRecordedByteExact() async throws {
        let proxy = try await ProxyHarness()
        let out = Paths.temporaryDirectory("out") + "/big.bin"
        let r = try curl(["-x", proxy.url, nginx.url("big.bin"), "-o", out, "-w", "%{http_code}"])
        #expect(r.text == "200")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file)
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        #expect(capture.exchanges.count == 1)
        #expect(ex.status == 200)
        #expect(ex.outcome == .complete)
        #expect(ex.bytesReceived == Int64(file.count))
        #expect(ex.sha256 == sha256Hex(file))
        #expect(try capture.body(of: ex) == file)
        // Chunks are contiguous, in order, timestamped in order, each at most the read buffer size (one round of socket reads).
        var expected: Int64 = 0
        var lastT: Int64 = 0
        for c in ex.chunks {
            #expect(c.offset == expected)
            #expect(c.resourceOffset == expected)
            #expect(c.size > 0 && c.size <= proxy.server.configuration.upstreamBufferSize)
            #expect(c.t >= lastT)
            expected += Int64(c.size)
            lastT = c.t
        }
        #expect(ex.responseLines.first?.raw.hasPrefix("HTTP/1.1 200 OK") == true)
        #expect(ex.responseLines.last?.raw == "\r\n")
    }

    @Test func rangesAreForwardedWithContentRangeAndResourceOffsets() async throws {
        let proxy = try await ProxyHarness()
        let r1 = try curl(["-x", proxy.url, "-r", "100-199", nginx.url("big.bin"), "-w", "\n%{http_code}"])
        #expect(r1.stdout.suffix(4) == Data("\n206".utf8))
        #expect(r1.stdout.prefix(100) == file[100..<200])
        let r2 = try curl(["-x", proxy.url, "-r", "-1000", nginx.url("big.bin"), "-o", "/dev/null", "-w", "%{http_code} %{size_download}"])
        #expect(r2.text == "206 1000")
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == 2)
        let a = capture.exchanges[0]
        #expect(a.requestRange == "bytes=100-199")
        #expect(a.contentRange == "bytes 100-199/\(file.count)")
        #expect(a.chunks.first?.resourceOffset == 100)
        #expect(try capture.body(of: a) == file[100..<200])
        let b = capture.exchanges[1]
        #expect(b.contentRange == "bytes \(file.count - 1000)-\(file.count - 1)/\(file.count)")
        #expect(b.chunks.first?.resourceOffset == Int64(file.count - 1000))
        #expect(try capture.body(of: b) == file.suffix(1000))
    }

    @Test func clientStoppingEarlyIsACancelWithByteCounts() async throws {
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        // The client reads 200 KB of an open-ended range, then hangs up.
        let script = "curl -s --noproxy '' -x \(proxy.url) -H 'Range: bytes=0-' \(nginx.url("big.bin")) | head -c 200000 | wc -c"
        let r = try runCommand("/bin/sh", ["-c", script])
        #expect(r.text.trimmingCharacters(in: .whitespacesAndNewlines) == "200000")
        // Give nginx a moment to log the aborted request.
        try await Task.sleep(for: .milliseconds(300))
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        #expect(ex.outcome == .cancelled)
        let delivered = try #require(ex.bytesDelivered)
        #expect(delivered >= 200_000, "the client read 200000 bytes, so at least that many were delivered")
        #expect(delivered <= ex.bytesReceived)
        #expect(ex.bytesReceived < Int64(file.count) / 2, "the upstream transfer was aborted, not read to the end")
        #expect(ex.sendBuffer != nil)
        #expect(try capture.body(of: ex) == file.prefix(Int(ex.bytesReceived)))
        // nginx's own count of what it sent: bounded by what we received plus kernel buffers.
        let line = try #require(nginx.accessLog().last { $0.contains("bytes=0-") })
        let sent = try #require(Int64(line.split(separator: " ")[3]))
        #expect(sent >= ex.bytesReceived)
        #expect(sent < Int64(file.count), "nginx stopped sending: \(sent) of \(file.count)")
        print("cancel: client read 200000, delivered \(delivered), received upstream \(ex.bytesReceived), nginx sent \(sent) (after hang-up: \(sent - ex.bytesReceived))")
    }

    @Test func twoURLsOnOneConnectionReuseBothSides() async throws {
        let proxy = try await ProxyHarness()
        let r = try curl(["-v", "-x", proxy.url, "-r", "0-9", nginx.url("big.bin"), "-r", "10-19", nginx.url("big.bin")])
        #expect(r.stderr.contains("Re-using existing connection"))
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == 2)
        let (a, b) = (capture.exchanges[0], capture.exchanges[1])
        #expect(a.connection == b.connection, "one client connection carried both requests")
        #expect(a.upstreamReused == false)
        #expect(b.upstreamReused == true)
        #expect(a.upstreamPort == b.upstreamPort)
        let opens = capture.events("conn.open").count
        #expect(opens == 1)
        guard case .connectionClose(let close)? = capture.events("conn.close").first else {
            Issue.record("no conn.close event")
            return
        }
        #expect(close.requests == 2)
        // nginx saw both requests on one connection too.
        let lines = nginx.accessLog().suffix(2).map { $0.split(separator: " ") }
        #expect(lines.count == 2 && lines[0][4] == lines[1][4])
    }

    @Test func headRequestsHaveNoBody() async throws {
        let proxy = try await ProxyHarness()
        let r = try curl(["-I", "-x", proxy.url, nginx.url("big.bin")])
        #expect(r.text.contains("Content-Length: \(file.count)"))
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        #expect(ex.method == "HEAD")
        #expect(ex.status == 200)
        #expect(ex.bytesReceived == 0)
        #expect(ex.outcome == .complete)
    }
}
