import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `record`'s stop line and `rangetap summary`'s last line are one count (``CaptureTotals``):
/// over a capture with a plain fetch, an intercepted HTTPS fetch, an opaque tunnel, a `--map`
/// answer, a cancel and a `rangetap shape` control connection, they print the same totals, and
/// the body bytes are what the clients were sent (no tunnel bytes).
@Suite(.serialized)
struct StopLineTotalsTests {
    @Test(.timeLimit(.minutes(2)))
    func theStopLineAndSummaryAgreeOnEveryKindOfExchange() async throws {
        let root = Paths.temporaryDirectory("totals")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let www = root + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try Data(repeating: 1, count: 100_000).write(to: URL(fileURLWithPath: www + "/a.bin"))
        try Data(repeating: 2, count: 3_000).write(to: URL(fileURLWithPath: www + "/m.bin"))
        let tls = try TestTLS.shared()
        let plain = try NginxServer(root: www)
        defer { plain.stop() }
        let secure = try NginxServer(root: www, tls: (tls.certificate, tls.key))
        defer { secure.stop() }
        let port = try freePort()
        let capture = root + "/t.rtap"
        let recorder = try TestProcess(
            Paths.rangetap,
            [
                "record", "--listen", "127.0.0.1:\(port)", "-o", capture, "--ca-dir", root + "/ca", "--upstream-cacert",
                tls.caFile, "--no-intercept", "localhost", "--shape", "off", "--map",
                "path=/mapped.bin,file=\(www)/m.bin",
            ])
        defer { recorder.stop(signal: SIGINT) }
        try waitForPort(port)
        let proxy = "http://127.0.0.1:\(port)"
        let curl = try Paths.tool("curl")
        func run(_ args: [String]) throws {
            let r = try runCommand(curl, ["-sS", "-o", "/dev/null", "-x", proxy] + args)
            #expect(r.status == 0, "curl \(args): \(r.stderr)")
        }
        try run([plain.url("a.bin")])  // 100000 body bytes
        try run(["-r", "0-999", plain.url("mapped.bin")])  // mapped: 1000 served
        // Intercepted (127.0.0.1) and opaque (localhost, --no-intercept) tunnels to the TLS origin.
        try run(["--cacert", root + "/ca/rangetap-ca.pem", "https://127.0.0.1:\(secure.port)/a.bin"])
        try run(["--cacert", tls.caFile, "https://localhost:\(secure.port)/a.bin"])
        // A control connection.
        let shape = try runCommand(Paths.rangetap, ["shape", "--listen", "127.0.0.1:\(port)"])
        #expect(shape.status == 0, "\(shape.stderr)")
        recorder.stop(signal: SIGINT, timeout: 10)
        let stop = try #require(
            recorder.stderrText.split(separator: "\n").first { $0.contains("rangetap: stopped (SIGINT): ") })
        let stopTotals = String(stop.split(separator: ": ", maxSplits: 2).last ?? "").replacingOccurrences(
            of: " -> \(capture)", with: "")
        let summary = try runCommand(Paths.rangetap, ["summary", capture])
        #expect(summary.status == 0, "\(summary.stderr)")
        let last = String(summary.text.split(separator: "\n").last ?? "")
        #expect(last.hasPrefix(stopTotals), "stop line: \(stopTotals)\nsummary:   \(last)")
        // Body bytes: the plain fetch, the mapped range, the intercepted fetch; not the tunnels.
        #expect(stopTotals.contains("\(100_000 + 1_000 + 100_000) body bytes"), "\(stopTotals)")
        #expect(stopTotals.contains("2 tunnels ("), "\(stopTotals)")
    }
}
