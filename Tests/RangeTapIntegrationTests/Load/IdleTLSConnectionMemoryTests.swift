import Foundation
import RangeTapTestSupport
import Testing

/// What an intercepted connection keeps once it is idle, seen from outside: a `rangetap record`
/// process intercepting HTTPS, nginx over TLS (HTTP/1.1, and h2), and `tools/conn-load.py`
/// opening 300 keep-alive connections through CONNECT tunnels that each fetch 1 MiB and then sit
/// idle; the growth of the process's resident memory (`/proc/PID/status`) per connection.
///
/// Before `TLSWriteBudget` each such connection held about 290 KiB over HTTPS and 150 KiB over
/// HTTP/2 (NIOSSL kept an outbound buffer the size of the largest flush, a 256 KiB round); with
/// it 45–60 KiB and 65–100 KiB (debug build, by hand). The bound sits between the two.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct IdleTLSConnectionMemoryTests {
    static let connections = 300
    static let bound = 128.0

    #if os(Linux)
    @Test(arguments: ["https", "h2"])
    func anIdleInterceptedConnectionDoesNotKeepItsLargestFlush(scheme: String) async throws {
        let dir = Paths.temporaryDirectory("idle-tls-www")
        let body = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) })
        try body.write(to: URL(fileURLWithPath: dir + "/big.bin"))
        let tls = try TestTLS.shared()
        let origin = try NginxServer(
            root: dir, tls: (certificate: tls.certificate, key: tls.key), http2: scheme == "h2")
        let caDir = Paths.temporaryDirectory("idle-tls-ca")
        let initCA = try runCommand(Paths.rangetap, ["ca", "init", "--ca-dir", caDir])
        try #require(initCA.status == 0, "\(initCA.stderr)")
        let port = try freePort()
        let capture = Paths.temporaryDirectory("idle-tls-capture") + "/c.rtap"
        let recorder = try TestProcess(
            Paths.rangetap,
            [
                "record", "--listen", "127.0.0.1:\(port)", "-o", capture, "--ca-dir", caDir, "--upstream-cacert",
                tls.caFile,
            ])
        defer { recorder.stop(signal: SIGINT) }
        try waitForPort(port)
        let sha = sha256Hex(body)
        let r = try runCommand(
            try Paths.tool("python3"),
            [
                Paths.root + "/tools/conn-load.py", "idle", "--scheme", scheme,
                "--ca", caDir + "/rangetap-ca.pem", "--proxy-port", String(port), "--origin-port", String(origin.port),
                "--path", "/big.bin", "--size", String(body.count), "--sha256", sha, "--pid", String(recorder.pid),
                "--count", String(Self.connections), "--concurrency", "10", "--warmup", "20", "--settle", "1",
                "--deadline", "200",
            ], timeout: 220)
        func value(_ key: String) -> String? {
            r.text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        #expect(r.status == 0, "\(r.text) \(r.stderr)")
        #expect(value("ok") == String(Self.connections) && value("still_open") == String(Self.connections), "\(r.text)")
        let perConnection = try #require(value("kib_per_connection").flatMap(Double.init), "\(r.text) \(r.stderr)")
        #expect(
            perConnection <= Self.bound,
            "\(scheme): \(perConnection) KiB per idle connection after a 1 MiB body\n\(r.text)")
    }
    #endif
}
