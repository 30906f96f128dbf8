import Foundation
import RangeTapCore
import RangeTapReplay
import RangeTapTestSupport
import Testing

/// Replaying real captures into caches: the built-in strategies are byte-exact, broken ones are
/// caught at the exact first bad byte, external caches are verified or reported as failing.
@Suite(.serialized)
struct ReplayTests {
    static let samples = ["avplayer-nginx", "ffmpeg-moov-at-end", "curl-ranges", "python-http-server"]

    func sample(_ name: String) -> String { Paths.root + "/captures/\(name).rtap" }

    @Test(arguments: CacheStrategy.allCases, ReplayTests.samples)
    func builtInStrategyIsExactOnSampleCapture(strategy: CacheStrategy, capture: String) throws {
        let dir = Paths.temporaryDirectory("cache")
        let report = try Replayer(path: sample(capture)).run(try strategy.make(directory: dir, capacity: 1 << 40))
        #expect(report.verified, "\(report.text)")
        #expect(report.bytesFromCache + report.bytesFromNetwork == report.bytesRequested)
        #expect(report.bytesRequested > 0)
    }

    @Test func strategiesSaveWhatTheirDesignAllows() throws {
        // avplayer-nginx: probe, cancelled open-ended reads, a seek, the tail: never a whole download.
        var saved: [CacheStrategy: Int64] = [:]
        for s in CacheStrategy.allCases {
            saved[s] = try Replayer(path: sample("avplayer-nginx")).run(
                try s.make(directory: Paths.temporaryDirectory("c"), capacity: 1 << 40)
            ).bytesFromCache
        }
        #expect(saved[.whole] == 0, "nothing was downloaded whole")
        #expect(saved[.prefix]! > 0 && saved[.prefix]! < saved[.sparse]!, "prefix keeps only the run from 0")
        #expect(saved[.sparse] == saved[.fragments])
    }

    /// Records curl requests to the quirk origin (byte i = (i*7 + i/256) % 256) through the proxy.
    func quirkCapture(_ ranges: [String]) async throws -> String {
        let origin = try QuirkOrigin(size: 1 << 20)
        let proxy = try await ProxyHarness()
        for r in ranges {
            _ = try runCommand(
                try Paths.tool("curl"),
                ["-s", "--noproxy", "", "-x", proxy.url, "-r", r, origin.url("/normal"), "-o", "/dev/null"])
        }
        _ = try await proxy.stopAndRead()
        return proxy.capturePath
    }

    @Test func offByOneMergeIsCaughtAtTheFirstBadByte() async throws {
        let path = try await quirkCapture(["0-999", "1000-1999"])
        let report = try Replayer(path: path).run(OffByOneMergeCache())
        #expect(!report.verified)
        let m = try #require(report.mismatches.first)
        #expect(report.mismatches.count == 1)
        #expect(m.offset == 1000)
        let expected = QuirkOrigin.expectedBytes(1000..<1016)
        #expect(m.expected == expected.map { String(format: "%02x", $0) }.joined(separator: " "))
        #expect(m.got.hasPrefix(String(format: "%02x", QuirkOrigin.expectedBytes(1001..<1002)[0])))
        #expect(m.storedBy == "playback 1, exchange 2")
    }

    @Test func wrongOffsetWhenTheFirstChunkIsNotAtZeroIsCaught() async throws {
        let path = try await quirkCapture(["0-999", "1000-1999"])
        let report = try Replayer(path: path).run(WrongOffsetCache())
        #expect(!report.verified)
        #expect(report.mismatches.map(\.offset) == [0, 1000])
        #expect(report.mismatches[1].storedBy == "playback 1, exchange 2")
        #expect(report.mismatches[1].got.hasPrefix("00"), "a hole in the sparse file")
    }

    @Test func twoPlayersOnOneResourceWithSeeksReplayExactly() async throws {
        let media = try Media.directory()
        let nginx = try NginxServer(root: media)
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        let url = nginx.url("moov-at-end.mp4")
        let a = try TestProcess(
            try Paths.tool("ffmpeg"),
            ["-v", "error", "-http_proxy", proxy.url, "-ss", "5", "-i", url, "-t", "2", "-f", "null", "-"])
        let b = try runCommand(
            try Paths.tool("ffprobe"),
            ["-v", "error", "-http_proxy", proxy.url, "-show_entries", "format=duration", url])
        #expect(b.status == 0)
        a.process.waitUntilExit()
        _ = try await proxy.stopAndRead()
        for s in CacheStrategy.allCases {
            let report = try Replayer(path: proxy.capturePath).run(
                try s.make(directory: Paths.temporaryDirectory("c"), capacity: 1 << 40))
            #expect(report.verified, "\(s): \(report.text)")
        }
    }

    @Test func capacityEvictsOldestFirstAndStaysExact() async throws {
        // Two resources of 1000 and 500 bytes in a 1200-byte cache: the second evicts the first.
        let origin = try QuirkOrigin(size: 1 << 16)
        let proxy = try await ProxyHarness()
        for (query, range) in [("a", "0-999"), ("b", "0-499")] {
            _ = try runCommand(
                try Paths.tool("curl"),
                [
                    "-s", "--noproxy", "", "-x", proxy.url, "-r", range, origin.url("/normal?r=\(query)"), "-o",
                    "/dev/null",
                ])
        }
        _ = try await proxy.stopAndRead()
        for strategy in [CacheStrategy.sparse, .prefix, .fragments] {
            let report = try Replayer(path: proxy.capturePath).run(
                try strategy.make(directory: Paths.temporaryDirectory("c"), capacity: 1200))
            #expect(report.verified, "\(strategy): \(report.text)")
            #expect(report.evictions > 0, "\(strategy): \(report.text)")
            #expect(report.oversized.isEmpty, "\(strategy): \(report.text)")
        }
    }

    /// A capacity smaller than the one resource of the capture (1.46 MB): the cache refuses it
    /// instead of holding it all, the files never pass the capacity, and the report says so.
    @Test(arguments: CacheStrategy.allCases)
    func aResourceLargerThanTheCapacityIsRefused(strategy: CacheStrategy) throws {
        let dir = Paths.temporaryDirectory("c")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = try strategy.make(directory: dir, capacity: 1000)
        let report = try Replayer(path: sample("python-http-server")).run(cache)
        #expect(report.verified, "\(report.text)")
        #expect(report.bytesRequested > 1_000_000)
        #expect(report.bytesFromCache <= Int64(report.requests) * 1000, "\(report.text)")
        #expect(report.bytesFromCache + report.bytesFromNetwork == report.bytesRequested)
        #expect(report.oversized.count == 1 && report.oversized[0].hasSuffix(".mp4"), "\(report.oversized)")
        #expect(report.text.contains("NOT CACHED \(report.oversized.first ?? "?")"))
        #expect(!report.text.contains("100.0% saved"))
        let held = try FileManager.default.contentsOfDirectory(atPath: dir).map { name in
            (try FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.size] as? Int64) ?? 0
        }
        #expect(held.reduce(0, +) <= 1000, "\(held)")
    }

    @Test func savedPercentIsNeverRoundedUpToAllOrDownToNothing() {
        var r = ReplayReport.failed(cache: "x", error: "")
        (r.bytesRequested, r.bytesFromCache, r.bytesFromNetwork) = (1_460_000, 1_459_999, 1)
        #expect(r.savedPercentText == "99.9%")
        (r.bytesFromCache, r.bytesFromNetwork) = (1, 1_459_999)
        #expect(r.savedPercentText == "0.1%")
        (r.bytesFromCache, r.bytesFromNetwork) = (1_460_000, 0)
        #expect(r.savedPercentText == "100.0%")
        (r.bytesFromCache, r.bytesFromNetwork) = (730_000, 730_000)
        #expect(r.savedPercentText == "50.0%")
        (r.bytesFromCache, r.bytesFromNetwork) = (0, 1_460_000)
        #expect(r.savedPercentText == "0.0%")
    }

    @Test func commandLineCapacityTakesSizesAndIsHonoured() throws {
        let small = try runCommand(
            Paths.rangetap, ["replay", sample("python-http-server"), "--cache", "sparse", "--capacity", "1k"])
        #expect(small.status == 0, "\(small.stderr)")
        #expect(small.text.contains("NOT CACHED"), "\(small.text)")
        #expect(!small.text.contains("100.0% saved"), "\(small.text)")
        let large = try runCommand(
            Paths.rangetap, ["replay", sample("python-http-server"), "--cache", "sparse", "--capacity", "2m", "--json"])
        #expect(large.status == 0, "\(large.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: large.stdout) as? [String: Any])
        #expect(json["oversized"] as? [String] == [])
        #expect((json["bytesFromCache"] as? Int ?? 0) > 1_000_000)
        let bad = try runCommand(
            Paths.rangetap, ["replay", sample("python-http-server"), "--cache", "sparse", "--capacity", "lots"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--capacity") && bad.stderr.contains("\"lots\" is not a size"), "\(bad.stderr)")
    }

    // MARK: External caches

    func adapter(_ flags: String = "") -> String {
        "python3 \(Paths.root)/tools/cache-adapter-example.py \(flags)"
    }

    @Test func pythonAdapterIsVerified() throws {
        let report = try Replayer(path: sample("avplayer-nginx")).run(try ExternalCache(command: adapter()))
        #expect(report.verified, "\(report.text)")
        #expect(report.bytesFromCache == report.bytesRequested)
    }

    @Test func corruptingAdapterIsCaughtAtItsByte() throws {
        let report = try Replayer(path: sample("avplayer-nginx")).run(
            try ExternalCache(command: adapter("--corrupt-at 300000")))
        #expect(!report.verified)
        #expect(report.mismatches.first?.offset == 300000)
    }

    @Test func crashingHangingAndGarbageAdaptersAreNeverVerified() throws {
        for (flags, words) in [
            ("--crash-after 5", "exited"), ("--hang-on read", "no answer"), ("--garbage-on read", "garbage"),
        ] {
            let report: ReplayReport
            do {
                report = try Replayer(path: sample("curl-ranges")).run(
                    try ExternalCache(command: adapter(flags), timeout: 2))
            } catch {
                Issue.record("\(flags): replay threw \(error) instead of reporting")
                continue
            }
            #expect(!report.verified, "\(flags)")
            #expect(
                report.errors.joined().contains(words) || report.errors.joined().contains("closed"),
                "\(flags): \(report.errors)")
        }
    }

    @Test func commandLineExitCodes() throws {
        let ok = try runCommand(
            Paths.rangetap, ["replay", sample("ffmpeg-moov-at-end"), "--cache", "sparse", "--json"])
        #expect(ok.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: ok.stdout) as? [String: Any])
        #expect(json["verified"] as? Bool == true)
        #expect(json["bytesFromCache"] is Int && json["bytesFromNetwork"] is Int && json["mismatches"] is [Any])
        let bad = try runCommand(
            Paths.rangetap, ["replay", sample("ffmpeg-moov-at-end"), "--cache-cmd", adapter("--corrupt-at 100")])
        #expect(bad.status == 1)
        #expect(bad.text.contains("MISMATCH") && bad.text.contains("at offset 100"))
        let missing = try runCommand(Paths.rangetap, ["replay", "/nonexistent.rtap", "--cache", "sparse"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot open capture"))
        let unknown = try runCommand(Paths.rangetap, ["replay", sample("curl-ranges"), "--cache", "lru"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("prefix, whole, fragments or sparse"))
    }
}
