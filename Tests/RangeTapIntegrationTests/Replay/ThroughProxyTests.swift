import Foundation
import RangeTapCore
import RangeTapReplay
import RangeTapTestSupport
import Testing

/// `replay --through`: nginx with `slice` + `proxy_cache` in front of the capture served as an
/// origin hands back exact bytes and, the second time, barely touches the origin.
@Suite(.serialized)
struct ThroughProxyTests {
    /// A capture of curl and ffprobe fetching the test media from nginx: whole files, ranges, the
    /// tail of an MP4 whose index is at the end.
    static func mediaCapture() async throws -> String {
        let media = try Media.directory()
        let nginx = try NginxServer(root: media)
        defer { nginx.stop() }
        let proxy = try await ProxyHarness()
        let curl = try Paths.tool("curl")
        for (file, args) in [
            ("moov-at-end.mp4", []), ("faststart.mp4", []),
            ("moov-at-end.mp4", ["-r", "0-1"]), ("moov-at-end.mp4", ["-r", "100000-1199999"]),
            ("moov-at-end.mp4", ["-r", "-500"]), ("faststart.mp4", ["-r", "2000000-"]),
        ] {
            let r = try runCommand(
                curl, ["-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null"] + args + [nginx.url(file)])
            #expect(r.status == 0)
        }
        let probe = try runCommand(
            try Paths.tool("ffprobe"),
            ["-v", "error", "-http_proxy", proxy.url, "-show_entries", "format=duration", nginx.url("moov-at-end.mp4")])
        #expect(probe.status == 0)
        _ = try await proxy.stopAndRead()
        return proxy.capturePath
    }

    /// nginx as a slice cache in front of 127.0.0.1:`originPort`; `cacheKey` is what it caches by.
    static func sliceCache(originPort: Int, cacheKey: String = "$uri$is_args$args$slice_range") throws -> NginxServer {
        let cache = Paths.temporaryDirectory("nginx-cache")
        return try NginxServer(
            root: cache,
            extraServerConfig: """
                location / {
                  slice 1m;
                  proxy_cache rt;
                  proxy_cache_key \(cacheKey);
                  proxy_set_header Range $slice_range;
                  proxy_cache_valid 200 206 1h;
                  proxy_http_version 1.1;
                  proxy_set_header Connection "";
                  proxy_pass http://127.0.0.1:\(originPort);
                }
                """,
            extraHTTPConfig:
                "proxy_cache_path \(cache)/c levels=1:2 keys_zone=rt:10m max_size=1g inactive=1h use_temp_path=off;")
    }

    @Test func nginxSliceCacheIsExactAndSparesTheOrigin() async throws {
        let capture = try await Self.mediaCapture()
        let originPort = try freePort()
        let nginx = try Self.sliceCache(originPort: originPort)
        defer { nginx.stop() }
        let replay = try ThroughProxyReplay(
            capturePath: capture, proxyURL: "http://127.0.0.1:\(nginx.port)", originPort: originPort)
        #expect(try await replay.startOrigin() == originPort)
        let result = await replay.run()
        await replay.stop()
        let report = result.report
        #expect(report.verified, "\(result.text)")
        #expect(report.mismatches.isEmpty && report.errors.isEmpty)
        #expect(report.requests >= 7)
        #expect(result.firstPass.originBytes >= 2_000_000, "the first pass fills the cache from the origin")
        #expect(result.secondPass.originBytes * 10 < result.firstPass.originBytes, "\(result.text)")
        #expect(report.bytesFromNetwork == result.secondPass.originBytes)
        #expect(report.bytesFromCache == report.bytesRequested - report.bytesFromNetwork)
        #expect(result.firstPass.bytesReceived >= result.firstPass.bytesRequested)
        print(
            "through nginx slice cache: first pass \(result.firstPass.originRequests) origin requests, \(result.firstPass.originBytes) B; second pass \(result.secondPass.originRequests) requests, \(result.secondPass.originBytes) B; \(report.bytesRequested) B asked per pass"
        )
    }

    @Test func aSliceCacheKeyedWithoutTheSliceRangeIsCaught() async throws {
        // The classic misconfiguration: every slice of a file shares one cache entry.
        let capture = try await Self.mediaCapture()
        let originPort = try freePort()
        let nginx = try Self.sliceCache(originPort: originPort, cacheKey: "$uri$is_args$args")
        defer { nginx.stop() }
        let replay = try ThroughProxyReplay(
            capturePath: capture, proxyURL: "http://127.0.0.1:\(nginx.port)", originPort: originPort, timeout: 10)
        let result = await replay.run()
        await replay.stop()
        #expect(!result.report.verified, "\(result.text)")
        #expect(!(result.report.mismatches.isEmpty && result.report.errors.isEmpty))
    }

    @Test func theCommandLineRunsThroughAProxyOnAGivenOriginPort() async throws {
        let capture = try await Self.mediaCapture()
        let originPort = try freePort()
        let nginx = try Self.sliceCache(originPort: originPort)
        defer { nginx.stop() }
        let r = try runCommand(
            Paths.rangetap,
            [
                "replay", capture, "--through", "http://127.0.0.1:\(nginx.port)", "--origin-port", String(originPort),
                "--json",
            ], timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(json["verified"] as? Bool == true)
        #expect(json["cache"] as? String == "through http://127.0.0.1:\(nginx.port)")
        let fromNetwork = try #require(json["bytesFromNetwork"] as? Int)
        let requested = try #require(json["bytesRequested"] as? Int)
        #expect(fromNetwork * 10 < requested)
        #expect(r.stderr.contains("127.0.0.1:\(originPort)"))

        // Bad input: exit 2 (usage) for a URL that is not http://HOST:PORT, and for two caches at once.
        let bad = try runCommand(Paths.rangetap, ["replay", capture, "--through", "https://x"])
        #expect(bad.status != 0 && bad.status != 1)
        let both = try runCommand(
            Paths.rangetap, ["replay", capture, "--through", "http://127.0.0.1:1", "--cache", "sparse"])
        #expect(both.status != 0 && both.status != 1)
    }

    /// Nothing listening at `--through`: one plain error (issue 39), no NIO text, no line per exchange.
    @Test func anUnreachableProxyIsAnErrorNotAVerification() async throws {
        let capture = Paths.root + "/captures/curl-ranges.rtap"
        let port = try freePort()
        let replay = try ThroughProxyReplay(capturePath: capture, proxyURL: "http://127.0.0.1:\(port)", timeout: 5)
        let result = await replay.run()
        await replay.stop()
        #expect(!result.report.verified)
        #expect(result.report.errors.count == 1, "\(result.report.errors)")
        #expect(
            result.report.errors.first?.hasPrefix(
                "nothing accepts connections at http://127.0.0.1:\(port) (Connection refused): start the proxy under test there"
            ) == true, "\(result.report.errors)")
        let cli = try runCommand(Paths.rangetap, ["replay", capture, "--through", "http://127.0.0.1:\(port)"])
        #expect(cli.status == 1)
        for word in ["NIO", "SingleConnectionFailure", "errno"] { #expect(!cli.text.contains(word), "\(cli.text)") }
    }
}
