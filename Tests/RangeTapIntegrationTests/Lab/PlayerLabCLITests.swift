import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The player lab through the `rangetap` binary and a real player: ffmpeg on a shaped link, and
/// fault rules read from a `--faults` file.
@Suite(.serialized)
struct PlayerLabCLITests {
    @Test func ffmpegOnAShapedLinkTakesAsLongAsTheBytesItReadAllow() async throws {
        let nginx = try NginxServer(root: try Media.directory())
        defer { nginx.stop() }
        let proxy = try await ProxyHarness { $0.shape = try! ShapeSpec(parsing: "rate=8mbit") }
        let started = Date()
        let r = try runCommand(
            try Paths.tool("ffmpeg"),
            [
                "-v", "error", "-http_proxy", proxy.url, "-i", nginx.url("moov-at-end.mp4"), "-c", "copy", "-f", "null",
                "-",
            ], timeout: 120)
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 0, "ffmpeg: \(r.stderr)")
        let capture = try await proxy.stopAndRead()
        // What reached ffmpeg over the link, by the proxy's delivered counts.
        let delivered = capture.requests.compactMap { $0.deliveries.last?.bytes }.reduce(0, +)
        #expect(delivered > 3_000_000, "delivered \(delivered)")
        let linkSeconds = Double(delivered) * 8 / 8_000_000
        #expect(
            elapsed >= linkSeconds * 0.85 && elapsed < linkSeconds * 3 + 5,
            "took \(elapsed) s for \(delivered) B (\(linkSeconds) s at 8 Mbit/s)")
    }

    @Test func rulesFromAFaultsFileFireAndABadFileNamesItsLine() async throws {
        let dir = Paths.temporaryDirectory("lab-faults")
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        let origin = try NginxServer(root: dir)
        defer { origin.stop() }
        let rules = dir + "/faults.txt"
        try
            "# the CDN fails every second request\n\npath=*.bin,nth=2,status=503\n  # and spells headers in upper case\nheader-case=upper\n"
            .write(toFile: rules, atomically: true, encoding: .utf8)
        let port = try freePort()
        let capturePath = dir + "/c.rtap"
        let record = try TestProcess(
            Paths.rangetap, ["record", "-p", String(port), "-o", capturePath, "--faults", rules])
        try waitForPort(port)
        var seen: [String] = []
        for _ in 0..<2 {
            let r = try runCommand(
                try Paths.tool("curl"),
                [
                    "-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-D", "-", "-o", "/dev/null",
                    origin.url("a.bin"),
                ])
            seen.append(r.text)
        }
        record.stop(signal: SIGINT, timeout: 10)
        #expect(
            seen.first?.hasPrefix("HTTP/1.1 200") == true && seen.first?.contains("CONTENT-LENGTH: 4096") == true,
            "\(seen)")
        #expect(seen.last?.hasPrefix("HTTP/1.1 503") == true, "\(seen)")
        let capture = try RecordedCapture(path: capturePath)
        let actions = capture.events("fault").compactMap { if case .fault(let f) = $0 { f.action } else { nil } }
        #expect(actions == ["header-case", "status"], "\(actions)")

        try "path=/a.bin,status=503\npath=/b.bin,stall-after=10k\n".write(
            toFile: rules, atomically: true, encoding: .utf8)
        let bad = try runCommand(
            Paths.rangetap, ["record", "--listen", "127.0.0.1:0", "-o", dir + "/bad.rtap", "--faults", rules],
            timeout: 30)
        #expect(bad.status == 2)
        #expect(
            bad.stderr.contains("--faults") && bad.stderr.contains("line 2") && bad.stderr.contains("for="),
            "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/bad.rtap"))
    }
}
