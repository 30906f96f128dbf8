import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// curl through the proxy against nginx: full GET, ranges, a client that stops early,
/// keep-alive. Each runs over both schemes: plain HTTP through the forward proxy, and HTTPS
/// through an intercepted CONNECT tunnel (nginx over TLS with a test CA the proxy trusts
/// upstream, curl trusting rangetap's CA); the same assertions hold for both.
@Suite(.serialized)
struct CurlRecordingTests {
    let dir: String
    let file: Data
    let origins: SchemeOrigins

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
        origins = try SchemeOrigins(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    /// A proxy for `scheme` (intercepting for https).
    func proxy(
        _ scheme: Scheme, _ configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ProxyHarness {
        scheme == .https ? try await origins.proxy(configure) : try await ProxyHarness(configure)
    }

    /// The request URL of `path` over `scheme`.
    func url(_ scheme: Scheme, _ path: String) -> String { origins.url(scheme, path) }

    /// The intercepted tunnel recorded what the client and rangetap negotiated.
    func expectInterception(_ capture: RecordedCapture, _ scheme: Scheme) {
        guard scheme == .https else {
            #expect(capture.events("tls").isEmpty)
            return
        }
        let handshakes = capture.events("tls").compactMap { if case .tls(let e) = $0 { e } else { nil } }
        #expect(
            !handshakes.isEmpty
                && handshakes.allSatisfy {
                    $0.outcome == .established && $0.version != nil && $0.cipher != nil && $0.alpn == "http/1.1"
                }, "\(handshakes)")
        let tunnels = capture.events("tunnel").compactMap { if case .tunnel(let e) = $0 { e } else { nil } }
        #expect(!tunnels.isEmpty && tunnels.allSatisfy { $0.intercepted == true })
        #expect(capture.requests.allSatisfy { $0.url?.hasPrefix("https://127.0.0.1:\(origins.secure.port)/") == true })
    }

    @Test(arguments: Scheme.allCases) func fullGetIsForwardedAndRecordedByteExact(_ scheme: Scheme) async throws {
        let proxy = try await proxy(scheme)
        let out = Paths.temporaryDirectory("out") + "/big.bin"
        let r = try curl(
            ["-x", proxy.url] + proxy.curlTrust + [url(scheme, "big.bin"), "-o", out, "-w", "%{http_code}"])
        #expect(r.text == "200")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file)
        let capture = try await proxy.stopAndRead()
        expectInterception(capture, scheme)
        let ex = try #require(capture.requests.first)
        #expect(capture.requests.count == 1)
        #expect(ex.status == 200)
        #expect(ex.outcome == .complete)
        #expect(ex.bytesReceived == Int64(file.count))
        #expect(ex.sha256 == sha256Hex(file))
        #expect(try capture.body(of: ex) == file)
        // Chunks are contiguous, in order, timestamped in order, each at most the read buffer size (one round of socket
        // reads).
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

    @Test(arguments: Scheme.allCases) func rangesAreForwardedWithContentRangeAndResourceOffsets(
        _ scheme: Scheme
    ) async throws {
        let proxy = try await proxy(scheme)
        let r1 = try curl(
            ["-x", proxy.url] + proxy.curlTrust + ["-r", "100-199", url(scheme, "big.bin"), "-w", "\n%{http_code}"])
        #expect(r1.stdout.suffix(4) == Data("\n206".utf8))
        #expect(r1.stdout.prefix(100) == file[100..<200])
        let r2 = try curl(
            ["-x", proxy.url] + proxy.curlTrust + [
                "-r", "-1000", url(scheme, "big.bin"), "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
            ])
        #expect(r2.text == "206 1000")
        let capture = try await proxy.stopAndRead()
        expectInterception(capture, scheme)
        #expect(capture.requests.count == 2)
        let a = capture.requests[0]
        #expect(a.requestRange == "bytes=100-199")
        #expect(a.contentRange == "bytes 100-199/\(file.count)")
        #expect(a.chunks.first?.resourceOffset == 100)
        #expect(try capture.body(of: a) == file[100..<200])
        let b = capture.requests[1]
        #expect(b.contentRange == "bytes \(file.count - 1000)-\(file.count - 1)/\(file.count)")
        #expect(b.chunks.first?.resourceOffset == Int64(file.count - 1000))
        #expect(try capture.body(of: b) == file.suffix(1000))
    }

    @Test(arguments: Scheme.allCases) func clientStoppingEarlyIsACancelWithByteCounts(_ scheme: Scheme) async throws {
        let proxy = try await proxy(scheme) { $0.clientSendBuffer = 16384 }
        // The client reads 200 KB of an open-ended range, then hangs up.
        let script =
            "curl -s --noproxy '' -x \(proxy.url) \(proxy.curlTrust.joined(separator: " ")) -H 'Range: bytes=0-' \(url(scheme, "big.bin")) | head -c 200000 | wc -c"
        let r = try runCommand("/bin/sh", ["-c", script])
        #expect(r.text.trimmingCharacters(in: .whitespacesAndNewlines) == "200000")
        // Give nginx a moment to log the aborted request.
        try await Task.sleep(for: .milliseconds(300))
        let capture = try await proxy.stopAndRead()
        expectInterception(capture, scheme)
        let ex = try #require(capture.requests.first)
        #expect(ex.outcome == .cancelled)
        let delivered = try #require(ex.bytesDelivered)
        #expect(delivered >= 200_000, "the client read 200000 bytes, so at least that many were delivered")
        #expect(delivered <= ex.bytesReceived)
        #expect(ex.bytesReceived < Int64(file.count) / 2, "the upstream transfer was aborted, not read to the end")
        #expect(ex.sendBuffer != nil)
        #expect(try capture.body(of: ex) == file.prefix(Int(ex.bytesReceived)))
        // nginx's own count of what it sent: bounded by what we received plus kernel buffers.
        let line = try #require(origins.server(scheme).accessLog().last { $0.contains("bytes=0-") })
        let sent = try #require(Int64(line.split(separator: " ")[3]))
        #expect(sent >= ex.bytesReceived)
        #expect(sent < Int64(file.count), "nginx stopped sending: \(sent) of \(file.count)")
        print(
            "cancel (\(scheme)): client read 200000, delivered \(delivered), received upstream \(ex.bytesReceived), nginx sent \(sent) (after hang-up: \(sent - ex.bytesReceived))"
        )
    }

    @Test(arguments: Scheme.allCases) func twoURLsOnOneConnectionReuseBothSides(_ scheme: Scheme) async throws {
        let proxy = try await proxy(scheme)
        let r = try curl(
            ["-v", "-x", proxy.url] + proxy.curlTrust + [
                "-r", "0-9", url(scheme, "big.bin"), "-r", "10-19", url(scheme, "big.bin"),
            ])
        #expect(r.stderr.contains("Re-using existing connection"))
        let capture = try await proxy.stopAndRead()
        expectInterception(capture, scheme)
        #expect(capture.requests.count == 2)
        let (a, b) = (capture.requests[0], capture.requests[1])
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
        // Inside a tunnel the CONNECT was the connection's first request.
        #expect(close.requests == (scheme == .https ? 3 : 2))
        // nginx saw both requests on one connection too.
        let lines = origins.server(scheme).accessLog().suffix(2).map { $0.split(separator: " ") }
        #expect(lines.count == 2 && lines[0][4] == lines[1][4])
    }

    @Test(arguments: Scheme.allCases) func headRequestsHaveNoBody(_ scheme: Scheme) async throws {
        let proxy = try await proxy(scheme)
        let r = try curl(["-I", "-x", proxy.url] + proxy.curlTrust + [url(scheme, "big.bin")])
        #expect(r.text.contains("Content-Length: \(file.count)"))
        let capture = try await proxy.stopAndRead()
        expectInterception(capture, scheme)
        let ex = try #require(capture.requests.first)
        #expect(ex.method == "HEAD")
        #expect(ex.status == 200)
        #expect(ex.bytesReceived == 0)
        #expect(ex.outcome == .complete)
    }
}
