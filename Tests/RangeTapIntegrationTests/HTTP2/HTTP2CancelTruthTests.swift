import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// An HTTP/2 client's cancel, checked at the origin and at the client's own socket, through the
/// intercepting proxy to nginx over TLS with h2: a `RST_STREAM` or a closed connection ends the
/// origin's request at once (nginx's log of when it finished), and `delivered` is what the
/// client's TCP acknowledged, whatever `WINDOW_UPDATE` said (a client that grants its 6 MB window
/// back late, as Chromium does).
@Suite(.serialized)
struct HTTP2CancelTruthTests {
    let dir: String
    let log: String
    let tls: TestTLS
    let nginx: NginxServer
    static let size = 64 << 20

    init() throws {
        dir = Paths.temporaryDirectory("www-h2-cancel")
        let logDir = Paths.temporaryDirectory("nginx-timed")
        log = logDir + "/timed.log"
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        var file = Data(capacity: Self.size)
        for _ in 0..<(Self.size >> 20) { file.append(block) }
        try file.write(to: URL(fileURLWithPath: dir + "/big.bin"))
        tls = try TestTLS.shared()
        // When nginx ended each request ($msec, the time it logged it) and what it had sent.
        nginx = try NginxServer(
            root: dir,
            extraHTTPConfig: """
                log_format timed '$uri $status $body_bytes_sent $msec $request_time';
                access_log \(log) timed;
                """, tls: (certificate: tls.certificate, key: tls.key), http2: true)
    }

    struct ClientOutput: Decodable {
        struct Then: Decodable {
            var status: Int?
            var bytes: Int
        }
        var read: Int
        var cancelledAt: Double
        var rcvbuf: Int
        var status: Int?
        var then: Then?
    }

    func client(_ proxy: ProxyHarness, _ args: [String]) throws -> ClientOutput {
        let r = try runCommand(
            try Paths.tool("python3"),
            [
                Paths.root + "/Tests/Clients/h2_cancel_client.py",
                "--proxy", "127.0.0.1:\(proxy.port)", "--connect", "127.0.0.1:\(nginx.port)", "--cafile",
                try #require(proxy.caCertificate),
                "--path", "/big.bin",
            ] + args)
        try #require(r.status == 0, "\(r.stderr)")
        return try JSONDecoder().decode(ClientOutput.self, from: r.stdout)
    }

    /// nginx's line for big.bin: bytes sent and the time it ended the request; waits up to
    /// `wait` seconds for it to appear.
    func originEnd(wait: Double) throws -> (sent: Int, at: Double)? {
        let deadline = Date().addingTimeInterval(wait)
        repeat {
            let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
            if let line = lines.last(where: { $0.hasPrefix("/big.bin ") }) {
                let f = line.split(separator: " ")
                if f.count >= 4, let sent = Int(f[2]), let at = Double(f[3]) { return (sent, at) }
            }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return nil
    }

    func cancelStopsTheOrigin(how: String) async throws {
        let proxy = try await tls.interceptingProxy()
        let out = try client(proxy, ["--read", "2000000", "--how", how, "--hold", "1.5"])
        #expect(out.status == 206 && out.read >= 2_000_000)
        // nginx ends the request when its stream is reset or its connection closed: at once, not
        // at its own send timeout with the stream held by flow control.
        let end = try #require(
            try originEnd(wait: 3), "nginx never ended the request: the upstream transfer goes on after the cancel")
        #expect(end.sent < Self.size, "the origin did not send the whole file")
        #expect(
            end.at - out.cancelledAt < 0.1,
            "the origin's request ended \(end.at - out.cancelledAt) s after the client's \(how)")
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.requests.first)
        #expect(ex.outcome == .cancelled)
        #expect(proxy.server.activeUpstreamTransfers == 0)
    }

    @Test func aResetStreamStopsTheOriginAtOnce() async throws {
        try await cancelStopsTheOrigin(how: "reset")
    }

    @Test func aClosedConnectionStopsTheOriginAtOnce() async throws {
        try await cancelStopsTheOrigin(how: "close")
    }

    /// `--shape` with an HTTP/2 client: the stream's `delivered` events follow the shaped link to
    /// its last byte, as over HTTP/1.1 (none came before: the stream's last DATA frame closed its
    /// channel long before the link carried it).
    @Test func aShapedLinkGivesAnHTTP2StreamItsClientTimeline() async throws {
        let spec = try ShapeSpec(parsing: "rate=2mbit")
        let proxy = try await tls.interceptingProxy { $0.shape = spec }
        let r = try runCommand(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", proxy.url] + proxy.curlTrust + [
                "--http2", "-r", "0-599999",
                "-o", "/dev/null", "-w", "%{http_version} %{size_download} %{time_pretransfer} %{time_total}",
                "https://127.0.0.1:\(nginx.port)/big.bin",
            ])
        let f = r.text.split(separator: " ")
        try #require(f.count == 4 && f[0] == "2" && f[1] == "600000", "\(r.text) \(r.stderr)")
        let clientSeconds = try #require(Double(f[3])) - (try #require(Double(f[2])))
        #expect(clientSeconds > 2, "600 kB at 2 Mbit/s: \(clientSeconds) s")
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.requests.first)
        let deliveries = ex.deliveries
        #expect(deliveries.count >= 10, "\(deliveries.count) delivered events")
        #expect(zip(deliveries, deliveries.dropFirst()).allSatisfy { $0.bytes < $1.bytes && $0.t < $1.t })
        #expect(deliveries.last?.bytes == 600_000)
        // The last delivery is when the link carried the last byte: the client's own last byte.
        let last = Double(try #require(deliveries.last?.t) - ex.start) / 1e9
        #expect(
            abs(last - clientSeconds) < 0.1,
            "last delivered \(last) s after the request, the client's last byte \(clientSeconds) s")
    }

    @Test func deliveredIsWhatTheClientsTCPAcknowledgedNotItsWindowUpdates() async throws {
        let proxy = try await tls.interceptingProxy()
        let out = try client(
            proxy, ["--read", "1400000", "--lazy-window", "--rcvbuf", "131072", "--then", "40000000-40099999"])
        #expect(out.status == 206 && out.then?.status == 206 && out.then?.bytes == 100_000)
        let capture = try await proxy.stopAndRead()
        let exchanges = capture.requests
        try #require(exchanges.count == 2)
        let cancelled = exchanges[0]
        #expect(cancelled.outcome == .cancelled)
        #expect(cancelled.deliveredBy == .tcpAcked || cancelled.deliveredBy == .tcpAckedAtLastWrite)
        let delivered = try #require(cancelled.bytesDelivered)
        // At least what it read; at most that and what its receive buffer held unread (with the
        // TLS records' and DATA frames' own bytes, under 2 %).
        let bound = Int64(Double(out.read + out.rcvbuf) * 1.02) + 65_536
        #expect(
            Int64(out.read) <= delivered && delivered <= bound,
            "read \(out.read), delivered \(delivered), receive buffer \(out.rcvbuf)")
        #expect(cancelled.bytesConsumed == 0, "no WINDOW_UPDATE for the stream: consumed stays 0, beside delivered")
        // inspect: the second stream is a seek from where the first one's delivered bytes ended.
        let analysis = try MediaAnalysis.analyze(path: proxy.capturePath)
        let second = try #require(analysis.exchanges.first { $0.record.id == exchanges[1].id })
        #expect(second.findings.contains { $0.code == FindingCode.seek.rawValue }, "\(second.findings.map(\.message))")
    }
}
