import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `record --shape`: curl through a shaped link against nginx. Bounds here are generous (the
/// machine is shared); tools/bench-lab.sh measures the accuracy itself.
@Suite(.serialized)
struct PlayerLabShapingTests {
    let dir: String
    let file: Data
    let origins: SchemeOrigins

    init() throws {
        dir = Paths.temporaryDirectory("shape-www")
        var bytes = [UInt8](repeating: 0, count: 1_000_000)
        var x: UInt32 = 0x0BAD_F00D
        for i in bytes.indices {
            x = x &* 1_664_525 &+ 1_013_904_223
            bytes[i] = UInt8(truncatingIfNeeded: x >> 24)
        }
        file = Data(bytes)
        try file.write(to: URL(fileURLWithPath: dir + "/m.bin"))
        origins = try SchemeOrigins(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    func proxy(_ scheme: Scheme, shape: String) async throws -> ProxyHarness {
        let spec = try ShapeSpec(parsing: shape)
        let configure: (inout ProxyConfiguration) -> Void = { $0.shape = spec }
        return scheme == .https ? try await origins.proxy(configure) : try await ProxyHarness(configure)
    }

    @Test(arguments: Scheme.allCases) func rateBoundsTheDownloadAndTheCaptureHasBothTimelines(
        _ scheme: Scheme
    ) async throws {
        // 1 MB at 4 Mbit/s: 2 s on the wire.
        let proxy = try await proxy(scheme, shape: "rate=4mbit")
        let out = Paths.temporaryDirectory("shape-out") + "/m.bin"
        let r = try curl(
            ["-x", proxy.url] + proxy.curlTrust + ["-o", out, "-w", "%{time_total}", origins.url(scheme, "m.bin")])
        let total = Double(r.text) ?? 0
        #expect(total > 1.6 && total < 4, "took \(total) s")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file)
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.requests.first)
        // The origin delivered long before the client got it: chunks say one, deliveries the other.
        let deliveries = ex.deliveries
        #expect(deliveries.count >= 10, "\(deliveries.count) delivered events")
        #expect(zip(deliveries, deliveries.dropFirst()).allSatisfy { $0.bytes < $1.bytes && $0.t < $1.t })
        #expect(deliveries.last?.bytes == 1_000_000)
        let originDone = try #require(ex.lastChunkAt)
        #expect(try #require(deliveries.last?.t) - originDone > 1_000_000_000)
        let shapes = capture.events("shape").compactMap { if case .shape(let s) = $0 { s } else { nil } }
        #expect(shapes.count == 1 && shapes.first?.spec.contains("rate=4mbit") == true, "\(shapes)")
    }

    @Test func latencyIsAddedToTheFirstByte() async throws {
        let proxy = try await proxy(.http, shape: "latency=250ms")
        let r = try curl([
            "-x", proxy.url, "-o", "/dev/null", "-w", "%{time_starttransfer}", "-r", "0-99",
            origins.url(.http, "m.bin"),
        ])
        let ttfb = Double(r.text) ?? 0
        #expect(ttfb >= 0.24 && ttfb < 1.5, "ttfb \(ttfb)")
        _ = try await proxy.stopAndRead()
    }

    @Test func theLinkChangesWhileRecording() async throws {
        let proxy = try await proxy(.http, shape: "rate=40mbit")
        let fast = try curl(["-x", proxy.url, "-o", "/dev/null", "-w", "%{time_total}", origins.url(.http, "m.bin")])
        // rangetap shape's request: the run's control socket, with the run's token
        // (ControlEndpointTests: what else it takes).
        let control = [
            "--unix-socket", ControlToken.socketPath(port: proxy.port), "-X", "POST", "-H",
            "Content-Type: \(LinkControlRequest.contentType)", "-H",
            "\(LinkControlRequest.tokenField): \(proxy.server.controlToken)", "-w", " %{http_code}",
        ]
        let change = try curl(control + ["http://rangetap.invalid/shape?rate=2mbit"])
        #expect(change.text.hasSuffix(" 200") && change.text.contains("rate=2mbit"), "\(change.text)")
        let bad = try curl(control + ["http://rangetap.invalid/shape?rate=fast"])
        #expect(bad.text.hasSuffix(" 400") && bad.text.contains("rate"), "\(bad.text)")
        let slow = try curl(["-x", proxy.url, "-o", "/dev/null", "-w", "%{time_total}", origins.url(.http, "m.bin")])
        let (f, s) = (Double(fast.text) ?? 0, Double(slow.text) ?? 0)
        #expect(f < 1.5 && s > 3 && s < 8, "fast \(f) s, slow \(s) s")
        let capture = try await proxy.stopAndRead()
        let shapes = capture.events("shape").compactMap { if case .shape(let e) = $0 { e.spec } else { nil } }
        #expect(shapes.count == 2 && shapes.last?.contains("rate=2mbit") == true, "\(shapes)")
        #expect(capture.requests.count == 2)  // the control requests are not exchanges
    }

    @Test func theCLIChangesTheLinkOfARunningRecord() async throws {
        let port = try freePort()
        let capture = Paths.temporaryDirectory("shape-cli") + "/c.rtap"
        let record = try TestProcess(
            Paths.rangetap,
            ["record", "--listen", "127.0.0.1:\(port)", "-o", capture, "--shape", "rate=10mbit,latency=20ms"])
        defer { record.stop(signal: SIGINT) }
        try waitForPort(port)
        let shown = try runCommand(Paths.rangetap, ["shape", "--listen", "127.0.0.1:\(port)"])
        #expect(shown.status == 0 && shown.text.contains("rate=10mbit"), "\(shown.text) \(shown.stderr)")
        let set = try runCommand(Paths.rangetap, ["shape", "--listen", "127.0.0.1:\(port)", "rate=500kbit"])
        #expect(set.status == 0 && set.text.contains("rate=500kbit"), "\(set.text) \(set.stderr)")
        let refused = try runCommand(Paths.rangetap, ["shape", "--listen", "127.0.0.1:\(port)", "scope=connection"])
        #expect(refused.status != 0 && refused.stderr.contains("scope"), "\(refused.stderr)")
        let unknown = try freePort()
        // A free port has no running record: a token file for it is a killed run's, left behind.
        try? FileManager.default.removeItem(atPath: ControlToken.path(port: unknown))
        let noToken = try runCommand(Paths.rangetap, ["shape", "--listen", "127.0.0.1:\(unknown)", "off"])
        #expect(
            noToken.status == 1 && noToken.stderr.contains("no control token for port \(unknown)"), "\(noToken.stderr)")
        let nobody = try runCommand(
            Paths.rangetap, ["shape", "--listen", "127.0.0.1:\(unknown)", "--token", "00", "off"])
        #expect(nobody.status == 1 && nobody.stderr.contains("cannot reach"), "\(nobody.stderr)")
        // The token is this run's: another one is refused.
        let forged = try runCommand(
            Paths.rangetap,
            ["shape", "--listen", "127.0.0.1:\(port)", "--token", String(repeating: "0", count: 32), "off"])
        #expect(forged.status != 0 && forged.stderr.contains("wrong Rangetap-Token"), "\(forged.stderr)")
    }
}
