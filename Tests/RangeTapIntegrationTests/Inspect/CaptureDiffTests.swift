import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapReport
import RangeTapTestSupport
import Testing

/// `rangetap diff`: a capture against itself is empty; a prefix-cache playback against the
/// original shows the bytes the cache saved.
@Suite struct CaptureDiffTests {
    typealias Object = [String: Any]

    static let samples = ["avplayer-nginx", "curl-ranges", "ffmpeg-moov-at-end", "python-http-server"]

    func diff(_ args: [String]) throws -> CommandResult {
        try runCommand(
            Paths.rangetap, ["diff"] + args, environment: ["PATH": "/usr/bin:/bin"], directory: Paths.root, timeout: 30)
    }

    func json(_ r: CommandResult) throws -> Object {
        try #require(try JSONSerialization.jsonObject(with: r.stdout) as? Object)
    }

    @Test(arguments: samples) func captureAgainstItselfIsEmpty(name: String) throws {
        let path = "captures/\(name).rtap"
        let text = try diff([path, path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text == "A: \(path)\nB: \(path)\nno differences\n")

        let r = try diff([path, path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try json(r)
        #expect(root["identical"] as? Bool == true)
        for key in [
            "changedMetrics", "resources", "findings", "onlyInA", "onlyInB", "findingsOnlyInA", "findingsOnlyInB",
        ] {
            #expect((root[key] as? [Any])?.isEmpty == true, "\(key)")
        }
        let metrics = try #require(root["metrics"] as? [Object])
        #expect(metrics.count == 10)
        for m in metrics where !(m["a"] is NSNull) { #expect((m["change"] as? NSNumber)?.doubleValue == 0, "\(m)") }
    }

    @Test func missingCaptureExitsTwoNamingIt() throws {
        let r = try diff(["captures/curl-ranges.rtap", "/nonexistent/nothing.rtap"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/nonexistent/nothing.rtap"))
        #expect(r.stdout.isEmpty)
    }

    @Test func helpSaysTheExitStatusAndTheJSONSchema() throws {
        let r = try runCommand(Paths.rangetap, ["diff", "--help"])
        #expect(r.status == 0)
        let help = r.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("0 when nothing differs"), "\(r.text)")
        #expect(help.contains("docs/diff.md") && help.contains("matched by URL path"))
        let bad = try diff(["captures/curl-ranges.rtap"])
        #expect(bad.status == 2, "a missing capture B is bad input")
    }

    @Test func valueOfACaptureAgainstItself() throws {
        let analysis = try MediaAnalysis.analyze(path: Paths.root + "/captures/curl-ranges.rtap")
        let d = CaptureDiff(analysis, analysis, pathA: "a", pathB: "a")
        #expect(d.identical)
        #expect(d.metric("bytesFetched")?.a == Double(analysis.summary.bytesFetched))
        #expect(d.metric("timeToFirstMediaByteMs")?.a != nil)
    }

    /// A player session recorded against nginx: two contiguous ranges from byte 0, then a seek
    /// and two more. Replayed with `--cache prefix`, the cache holds 0-199999 after the first
    /// playback and answers the first two; the two after the seek start past its prefix and come
    /// from the network. B is that second playback as the network saw it, recorded for real: the
    /// two ranges after the seek. `diff A B` must show as saved exactly the bytes `replay`
    /// reports from the cache, and B's bytes fetched must be its `bytesFromNetwork`.
    @Test func prefixCachePlaybackShowsTheSavedBytes() async throws {
        let root = Paths.temporaryDirectory("diff-media")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }).write(
            to: URL(fileURLWithPath: root + "/media.bin"))
        let nginx = try NginxServer(root: root)
        defer { nginx.stop() }
        let curl = try Paths.tool("curl")

        func record(_ ranges: [String]) async throws -> String {
            let proxy = try await ProxyHarness()
            var args: [String] = []
            for (i, r) in ranges.enumerated() {
                args +=
                    (i == 0 ? [] : ["--next"]) + [
                        "-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", "-r", r, nginx.url("media.bin"),
                    ]
            }
            let run = try runCommand(curl, args)
            guard run.status == 0 else { throw TestFailure("curl: \(run.stderr)") }
            let recorded = try await proxy.stopAndRead()
            guard recorded.exchanges.count == ranges.count else {
                throw TestFailure("recorded \(recorded.exchanges.count) exchanges")
            }
            return proxy.capturePath
        }
        let a = try await record(["0-99999", "100000-199999", "600000-699999", "700000-799999"])
        let b = try await record(["600000-699999", "700000-799999"])
        defer {
            for c in [a, b] { try? FileManager.default.removeItem(atPath: (c as NSString).deletingLastPathComponent) }
        }

        let replay = try runCommand(Paths.rangetap, ["replay", a, "--cache", "prefix", "--json"], timeout: 30)
        #expect(replay.status == 0, "\(replay.stderr)")
        let report = try json(replay)
        let fromCache = try #require((report["bytesFromCache"] as? NSNumber)?.int64Value)
        let fromNetwork = try #require((report["bytesFromNetwork"] as? NSNumber)?.int64Value)
        #expect(fromCache == 200_000 && fromNetwork == 200_000)

        let r = try diff([a, b, "--json"])
        #expect(r.status == 1, "differences exit 1: \(r.stderr)")
        let root2 = try json(r)
        #expect(root2["identical"] as? Bool == false)
        let metrics = try #require(root2["metrics"] as? [Object])
        func metric(_ name: String) throws -> Object { try #require(metrics.first { $0["name"] as? String == name }) }
        let fetched = try metric("bytesFetched")
        #expect((fetched["a"] as? NSNumber)?.int64Value == 400_000)
        #expect((fetched["b"] as? NSNumber)?.int64Value == fromNetwork)
        #expect((fetched["change"] as? NSNumber)?.int64Value == -fromCache)
        #expect((fetched["percent"] as? NSNumber)?.doubleValue == -50)
        let requests = try metric("requests")
        #expect((requests["a"] as? NSNumber)?.intValue == 4 && (requests["b"] as? NSNumber)?.intValue == 2)
        #expect((root2["changedMetrics"] as? [String])?.contains("bytesFetched") == true)
        let resources = try #require(root2["resources"] as? [Object])
        #expect(resources.count == 1)
        #expect(resources.first?["path"] as? String == "/media.bin")
        #expect((resources.first?["bytesFetchedChange"] as? NSNumber)?.int64Value == -fromCache)

        let text = try diff([a, b])
        #expect(text.status == 1)
        #expect(text.text.contains("-200000 (-50.0%)"), "\(text.text)")
        #expect(text.text.contains("/media.bin"))
        #expect(!text.text.contains("no differences"))
    }
}
