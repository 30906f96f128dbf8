import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// Correctness under load (issue 15, "Performance"): a burst of 5,000 short connections (the
/// issue's figure) through the recording proxy against nginx, each one GET of a 16 KiB file, at
/// most 500 in flight. The client is tools/conn-load.py (the client of tools/bench-conns.sh),
/// which checks every response: 200, exactly the file's length, the file's SHA-256. The capture
/// must hold every exchange, whole. Nothing here is timed: only counts and bytes are asserted.
@Suite(.serialized)
struct ConnectionBurstTests {
    /// Connections in the burst.
    static let connections = 5000
    /// At most this many at once.
    static let inFlight = 500
    /// Length of the served file.
    static let size = 16 * 1024

    @Test func aBurstOfConnectionsIsServedExactlyAndRecordedWhole() async throws {
        // The proxy holds two descriptors per client connection (the socket and the duplicate
        // ClientWire keeps for TCP_INFO) and one per upstream connection; conn-load.py, which
        // inherits the limit, one per connection. Twice that, for connections still closing
        // while new ones open.
        try raiseDescriptorLimit(to: 6 * Self.inFlight + 1024, for: "\(Self.inFlight) connections in flight")
        let root = Paths.temporaryDirectory("burst-www")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var generator = SeededGenerator(seed: 15)
        let file = Data((0..<Self.size).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try file.write(to: URL(fileURLWithPath: root + "/16k.bin"))
        let sha = sha256Hex(file)
        let nginx = try NginxServer(root: root)
        defer { nginx.stop() }
        let proxy = try await ProxyHarness()
        defer { try? FileManager.default.removeItem(atPath: (proxy.capturePath as NSString).deletingLastPathComponent) }

        let burst = try ConnLoadBurst(
            proxyPort: proxy.port, originPort: nginx.port,
            path: "/16k.bin", size: Self.size, sha256: sha, connections: Self.connections, inFlight: Self.inFlight)
        // Every client: status 200, 16,384 bytes, the file's SHA-256.
        #expect(burst.servedAll(Self.connections), "\(burst.report)")

        let capture = try await proxy.stopAndRead()
        // No lost events: one request and one end per connection, no error, cancel or failure.
        #expect(capture.events("request").count == Self.connections)
        #expect(capture.events("end").count == Self.connections)
        #expect(capture.events("response").count == Self.connections)
        #expect(capture.events("conn.open").count == Self.connections)
        #expect(capture.events("error").isEmpty)
        #expect(capture.events("cancel").isEmpty)
        #expect(capture.exchanges.count == Self.connections)
        #expect(Set(capture.exchanges.map(\.connection)).count == Self.connections)
        let origin = "http://127.0.0.1:\(nginx.port)/16k.bin?c="
        let numbers = Set(
            capture.exchanges.compactMap {
                $0.url.flatMap { $0.hasPrefix(origin) ? Int($0.dropFirst(origin.count)) : nil }
            })
        #expect(numbers == Set(0..<Self.connections), "every client's request is in the capture once")
        var wrong: [String] = []
        for e in capture.exchanges {
            let body = try capture.body(of: e)
            if e.outcome != .complete || e.status != 200 || e.bytesReceived != Int64(Self.size) || e.sha256 != sha
                || body.count != Self.size || sha256Hex(body) != sha
            {
                wrong.append(
                    "#\(e.id) \(e.outcome) status \(e.status.map(String.init) ?? "none") \(e.bytesReceived) B recorded \(body.count) B"
                )
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) exchanges not complete with the exact bytes, e.g. \(wrong.prefix(3))")

        // nginx sent the whole file once per connection.
        let served = nginx.accessLog().filter { $0.hasPrefix("GET /16k.bin ") }
        #expect(served.count == Self.connections)
        #expect(served.allSatisfy { $0.split(separator: " ")[3] == "\(Self.size)" })
    }
}
