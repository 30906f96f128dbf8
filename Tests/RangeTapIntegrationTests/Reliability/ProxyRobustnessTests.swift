import Foundation
import Logging
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// Bad input, vanishing peers, bursts, shutdown: a clear error, the proxy keeps serving, the
/// capture stays readable and complete.
@Suite(.serialized)
struct ProxyRobustnessTests {
    let dir: String
    let nginx: NginxServer

    init() throws {
        dir = Paths.temporaryDirectory("www")
        try Data(QuirkOrigin.expectedBytes(0..<(4 << 20))).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        nginx = try NginxServer(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    @Test func malformedRequestGets400AndTheProxyKeepsServing() async throws {
        let proxy = try await ProxyHarness()
        let reply = try rawExchange(port: proxy.port, send: "GARBAGE \u{1}\u{2} nonsense\r\n\r\n")
        #expect(reply.hasPrefix("HTTP/1.1 400"))
        let r = try curl(["-x", proxy.url, nginx.url("a.bin"), "-r", "0-0", "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(r.text == "206")
        let capture = try await proxy.stopAndRead()
        let errors = capture.events.compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errors.contains { $0.kind == .badRequest && $0.status == 400 })
        #expect(capture.exchanges.count == 1)
    }

    @Test func originFormWithoutUpstreamIsRefusedWithAHint() async throws {
        let proxy = try await ProxyHarness()
        let r = try curl(["\(proxy.url)/a.bin", "-w", "\n%{http_code}"])
        #expect(r.text.hasSuffix("\n400"))
        #expect(r.text.contains("--upstream"))
        let loop = try curl(["-x", proxy.url, "\(proxy.url)/x", "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(loop.text == "508")
        _ = try await proxy.stopAndRead()
    }

    @Test func unreachableUpstreamGets502NamingTheCurlError() async throws {
        let proxy = try await ProxyHarness()
        let dead = try freePort()
        let r = try curl(["-x", proxy.url, "http://127.0.0.1:\(dead)/x", "-w", "\n%{http_code}"])
        #expect(r.text.hasSuffix("\n502"))
        #expect(r.text.contains("curl error 7"))
        let ok = try curl(["-x", proxy.url, nginx.url("a.bin"), "-r", "0-0", "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(ok.text == "206")
        let capture = try await proxy.stopAndRead()
        guard case .failed(let message) = capture.exchanges[0].outcome else {
            Issue.record("expected failure")
            return
        }
        #expect(message.contains("Connection refused") || message.contains("connect"))
    }

    @Test func reverseProxyModeSendsOriginFormRequestsUpstream() async throws {
        let proxy = try await ProxyHarness { $0.upstream = "http://127.0.0.1:\(nginx.port)" }
        let r = try curl(["-r", "0-99", "\(proxy.url)/a.bin", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"])
        #expect(r.text == "206 100")
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.first?.url == "http://127.0.0.1:\(nginx.port)/a.bin")
        #expect(capture.reader.header.upstream == "http://127.0.0.1:\(nginx.port)")
    }

    @Test func httpsUpstreamThroughLibcurl() async throws {
        let tls = Paths.temporaryDirectory("tls")
        let gen = try runCommand(
            try Paths.tool("openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", tls + "/key.pem", "-out", tls + "/cert.pem",
                "-days", "1", "-subj", "/CN=127.0.0.1",
            ])
        #expect(gen.status == 0, "openssl: \(gen.stderr)")
        let tlsServer = try NginxServer(root: dir, tls: (certificate: tls + "/cert.pem", key: tls + "/key.pem"))
        let port = tlsServer.port
        let proxy = try await ProxyHarness {
            $0.upstream = "https://127.0.0.1:\(port)"
            $0.insecureUpstream = true
        }
        let r = try curl(["-r", "10-19", "\(proxy.url)/a.bin", "-w", "\n%{http_code}"])
        #expect(r.text.hasSuffix("\n206"))
        #expect(r.stdout.prefix(10) == Data(QuirkOrigin.expectedBytes(10..<20)))
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.first?.contentRange == "bytes 10-19/\(4 << 20)")
        tlsServer.stop()
    }

    @Test func secretsAreRedactedUnlessKept() async throws {
        for keep in [false, true] {
            let proxy = try await ProxyHarness { $0.keepSecrets = keep }
            _ = try curl([
                "-x", proxy.url, "-H", "Cookie: session=abc123", "-H", "Authorization: Basic Zm9v", nginx.url("a.bin"),
                "-r", "0-0", "-o", "/dev/null",
            ])
            let capture = try await proxy.stopAndRead()
            let raw = try #require(capture.exchanges.first).requestHeaders.map(\.raw).joined()
            #expect(raw.contains("abc123") == keep)
            #expect(raw.contains("Zm9v") == keep)
            #expect(raw.contains("Cookie: ") && raw.contains("Authorization: "))
            #expect(capture.reader.header.redacted == !keep)
        }
    }

    @Test func metadataOnlyCaptureKeepsHashesButNoBodies() async throws {
        let proxy = try await ProxyHarness { $0.recordBodies = false }
        _ = try curl(["-x", proxy.url, nginx.url("a.bin"), "-o", "/dev/null"])
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        #expect(!FileManager.default.fileExists(atPath: proxy.capturePath + "/body.bin"))
        #expect(ex.chunks.allSatisfy { $0.bodyOffset == nil })
        #expect(ex.sha256 == sha256Hex(Data(QuirkOrigin.expectedBytes(0..<(4 << 20)))))
        #expect(throws: CaptureError.self) { try capture.body(of: ex) }
    }

    @Test func connectTunnelIsRecordedAsByteCounts() async throws {
        let proxy = try await ProxyHarness()
        let r = try curl([
            "-p", "-x", proxy.url, nginx.url("a.bin"), "-r", "0-99", "-o", "/dev/null", "-w",
            "%{http_code} %{size_download}",
        ])
        #expect(r.text == "206 100")
        let capture = try await proxy.stopAndRead()
        let tunnel = try #require(capture.events.compactMap { if case .tunnel(let t) = $0 { t } else { nil } }.first)
        #expect(tunnel.authority == "127.0.0.1:\(nginx.port)")
        #expect(tunnel.up > 50)
        #expect(tunnel.down > 100)
        #expect(capture.exchanges.first?.method == "CONNECT")
    }

    @Test func burstOfAbandonedConnectionsLeaksNothingAndIsFullyRecorded() async throws {
        let proxy = try await ProxyHarness()
        let count = 200
        let url = nginx.url("a.bin")
        let port = proxy.port
        /// Like a player opening a burst of connections and dropping most mid-body; one in four
        /// reads its response to the end. 50 threads at a time, blocking sockets. Returns the
        /// descriptors open once everything has wound down. The ones read to the end ask for
        /// 256 KiB (the others for the rest of the 4 MiB file, abandoned within 60 KB): what is
        /// tested is the winding down, and the debug build's proxy spent 20 CPU s on 4 MiB each.
        func burst() async throws -> Int {
            let failures = runOnThreads(count: count, width: 50) { i in
                let readAll = i % 4 == 0
                let range = readAll ? "\(i * 1000)-\(i * 1000 + 262_143)" : "\(i * 1000)-"
                let request =
                    "GET \(url) HTTP/1.1\r\nHost: x\r\nRange: bytes=\(range)\r\n\(readAll ? "Connection: close\r\n" : "")\r\n"
                _ = try rawExchange(
                    port: port, send: request, readAtMost: readAll ? 1 << 30 : 1 + (i * 997) % 60_000, timeout: 10)
            }
            #expect(failures.isEmpty, "client errors: \(failures.prefix(3))")
            // Everything winds down by itself (bounded wait).
            let deadline = Date().addingTimeInterval(10)
            while (proxy.server.openClientConnections > 0 || proxy.server.activeUpstreamTransfers > 0)
                && Date() < deadline
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(proxy.server.openClientConnections == 0)
            #expect(proxy.server.activeUpstreamTransfers == 0)
            return openSockets(onPorts: [port, nginx.port])
        }
        // Only this process's sockets on the proxy's and the origin's ports are counted (a dup
        // of a client socket, a connection libcurl keeps idle and a leaked one all included):
        // the whole descriptor table also holds what suites running in parallel open, and
        // wandered by 50 in such a run. Measured: 1 after each burst (the listener). A leak
        // grows with every burst: one socket per 20 abandoned connections would add 10 a burst.
        let afterFirst = try await burst()
        _ = try await burst()
        let afterThird = try await burst()
        #expect(afterFirst > 0, "the count sees the proxy's listening socket")
        #expect(
            afterThird <= afterFirst + 16,
            "sockets on the proxy's and the origin's ports: \(afterFirst) after one burst, \(afterThird) after three")
        let capture = try await proxy.stopAndRead()
        #expect(capture.events("conn.open").count == 3 * count)
        #expect(capture.events("conn.close").count == 3 * count)
        #expect(capture.exchanges.count == 3 * count)
        #expect(capture.exchanges.allSatisfy { $0.outcome != .open })
        #expect(capture.exchanges.filter { $0.outcome == .cancelled }.count >= count)
    }

    @Test func stoppingMidTransferClosesTheCaptureCleanly() async throws {
        let origin = try QuirkOrigin(size: 1 << 20)
        let proxy = try await ProxyHarness()
        let client = try TestProcess(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", proxy.url, origin.url("/slow?delay_ms=50&piece=4096"), "-o", "/dev/null"])
        // Stop once the transfer is under way: its first chunk is in the capture. (A fixed half
        // second was once too short for curl to start on a loaded machine.) At most 20 s.
        let events = proxy.capturePath + "/events.jsonl"
        for _ in 0..<400 {
            let text = (try? String(contentsOfFile: events, encoding: .utf8)) ?? ""
            if text.contains(#""type":"chunk""#) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(200))
        let capture = try await proxy.stopAndRead()
        client.stop()
        let ex = try #require(capture.exchanges.first)
        #expect(ex.outcome != .open, "the open exchange was closed out: \(ex.outcome)")
        #expect(ex.bytesReceived > 0)
        #expect(!capture.reader.truncatedTail)
    }

    @Test func captureOfAKilledRecorderIsReadableUpToItsLastEvent() async throws {
        let origin = try QuirkOrigin(size: 4 << 20)
        let port = try freePort()
        let path = Paths.temporaryDirectory("kill") + "/k.rtap"
        let recorder = try TestProcess(Paths.rangetap, ["record", "--listen", "127.0.0.1:\(port)", "-o", path])
        try waitForPort(port)
        let client = try TestProcess(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", origin.url("/slow?delay_ms=5&piece=8192"),
                "-o", "/dev/null",
            ])
        try await Task.sleep(for: .milliseconds(700))
        kill(recorder.pid, SIGKILL)
        recorder.stop()
        client.stop()
        let capture = try RecordedCapture(path: path)
        let ex = try #require(capture.exchanges.first)
        #expect(ex.status == 200)
        #expect(ex.chunks.count > 10)
        // Every chunk that made it into events.jsonl has its bytes in body.bin.
        let body = try capture.body(of: ex)
        #expect(body == Data(QuirkOrigin.expectedBytes(0..<body.count)))
    }

    @Test func recordCommandPrintsLinesAndASummaryOnSIGINT() async throws {
        let port = try freePort()
        let path = Paths.temporaryDirectory("cli") + "/c.rtap"
        let recorder = try TestProcess(Paths.rangetap, ["record", "--listen", "127.0.0.1:\(port)", "-o", path])
        try waitForPort(port)
        _ = try curl(["-x", "http://127.0.0.1:\(port)", "-r", "0-9", nginx.url("a.bin"), "-o", "/dev/null"])
        recorder.stop(signal: SIGINT)
        #expect(recorder.process.terminationStatus == 0)
        let err = recorder.stderrText
        #expect(err.contains("GET /a.bin range=bytes=0-9 -> 206 [bytes 0-9/\(4 << 20)] 10 B"))
        // Two connections: the readiness probe of waitForPort, then curl.
        #expect(err.contains("stopped (SIGINT): 1 exchanges on 2 connections"))
        let summary = try runCommand(Paths.rangetap, ["summary", path])
        #expect(summary.status == 0)
        #expect(summary.text.contains("1 exchanges on 2 connections, 10 body bytes, 0 cancelled, 0 errors"))
    }

    @Test func refusesToListenOnANonLoopbackAddressByDefault() throws {
        let path = Paths.temporaryDirectory("remote") + "/r.rtap"
        #expect(throws: ProxyError.self) {
            _ = try ProxyServer(
                configuration: ProxyConfiguration(listenHost: "0.0.0.0", listenPort: 0, capturePath: path),
                logger: Logger(label: "t"))
        }
        let cli = try runCommand(Paths.rangetap, ["record", "--listen", "0.0.0.0:0", "-o", path + "2"])
        #expect(cli.status == 2)
        #expect(cli.stderr.contains("--allow-remote"))
        // Bad arguments are "bad input" (2) too, with argument-parser's message.
        let unknown = try runCommand(Paths.rangetap, ["record", "--no-such-flag", "-o", path + "3"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--no-such-flag"))
        let help = try runCommand(Paths.rangetap, ["record", "--help"])
        #expect(help.status == 0)
    }
}

/// Connects to 127.0.0.1:`port`, sends `send`, reads until `readAtMost` bytes, EOF or the
/// timeout, closes, and returns what was read (Latin-1).
func rawExchange(port: Int, send: String, readAtMost: Int = 1 << 20, timeout: Double = 5) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket failed") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard rc == 0 else { throw TestFailure("connect to \(port) failed") }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    let bytes = Array(send.utf8)
    _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(timeout)
    while received.count < readAtMost && Date() < deadline {
        let n = recv(fd, &buffer, min(buffer.count, readAtMost - received.count), 0)
        if n <= 0 { break }
        received.append(contentsOf: buffer[0..<n])
    }
    return Latin1.string(received)
}

/// This process's descriptors that are TCP sockets with `ports` as their local or remote port:
/// the socket inodes behind `/proc/self/fd`, looked up in `/proc/net/tcp` and `tcp6` (read whole:
/// `ProcFiles`).
func openSockets(onPorts ports: Set<Int>) -> Int {
    ProcFiles.socketDescriptors { ports.contains($0.localPort) || ports.contains($0.remotePort) }.count
}

/// Runs `body(i)` for i in 0..<count on plain threads, `width` at a time; returns the errors.
func runOnThreads(count: Int, width: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
    let errors = NSLock()
    nonisolated(unsafe) var failures: [String] = []
    var start = 0
    while start < count {
        let group = DispatchGroup()
        for i in start..<min(count, start + width) {
            group.enter()
            Thread.detachNewThread {
                do { try body(i) } catch { errors.withLock { failures.append("\(i): \(error)") } }
                group.leave()
            }
        }
        group.wait()
        start += width
    }
    return errors.withLock { failures }
}

/// A client that leaves before its request is whole: the capture still holds the request, and
/// an error saying how much of its body arrived and that its upload to the origin was stopped
/// (bodies stream: RequestBodyStreamingTests show with a sink origin that none arrives whole).
@Suite(.serialized)
struct CutRequestTests {
    @Test func aRequestCutMidBodyIsRecordedWithAClientError() async throws {
        let origin = try QuirkOrigin(size: 1024)
        defer { origin.stop() }
        let proxy = try await ProxyHarness()
        // Content-Length 100, 10 bytes sent, then the socket closes.
        _ = try rawExchange(
            port: proxy.port,
            send:
                "POST \(origin.url("/echo")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\nContent-Length: 100\r\n\r\n0123456789",
            readAtMost: 0)
        // Chunked, one chunk of 5 and no last chunk.
        _ = try rawExchange(
            port: proxy.port,
            send:
                "PUT \(origin.url("/echo")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n",
            readAtMost: 0)
        // The proxy keeps serving.
        let ok = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", proxy.url, origin.url("/normal"), "-r", "0-0", "-o", "/dev/null", "-w",
                "%{http_code}",
            ])
        #expect(ok.text == "206")
        let capture = try await proxy.stopAndRead()
        let requests = capture.events.compactMap { if case .request(let e) = $0 { e } else { nil } }
        #expect(requests.map(\.method) == ["POST", "PUT", "GET"], "\(requests.map(\.method))")
        let errors = capture.events.compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errors.count == 2 && errors.allSatisfy { $0.kind == .client && $0.status == nil }, "\(errors)")
        try #require(requests.count == 3)
        #expect(
            errors.first { $0.exchange == requests[0].exchange }?.message.contains(
                "before its request body was whole (10 of 100 bytes received)") == true, "\(errors.map(\.message))")
        #expect(
            errors.first { $0.exchange == requests[1].exchange }?.message.contains(
                "before its request body was whole (5 bytes of a chunked body received)") == true,
            "\(errors.map(\.message))")
        // Their exchanges had begun upstream with the body's first bytes: the client's close is
        // a cancel of each, and the error on each says what was cut.
        #expect(
            capture.exchanges.prefix(2).allSatisfy { $0.outcome == .cancelled }, "\(capture.exchanges.map(\.outcome))")
        #expect(
            errors.allSatisfy { $0.message.hasSuffix("rangetap stopped the request to the origin") },
            "\(errors.map(\.message))")
        #expect(origin.log.contains("/normal"), "\(origin.log)")
        #expect(proxy.server.liveExchanges == 0 && proxy.server.bodyBytesHeld == 0)
    }
}
