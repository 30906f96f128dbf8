import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession on Linux
#endif
import RangeTapTesting
import Testing

/// rangetap's sample capture of curl asking ranges of two MP4 files, from the rangetap
/// checkout beside this package.
let capture = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Tests/FixtureTestsTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // FixtureTests
    .deletingLastPathComponent()
    .appendingPathComponent("rangetap/captures/curl-ranges.rtap")

@Suite struct MovieFetchTests {
    /// A client asks the fixture origin for a range: the captured bytes come back, and the
    /// fixture's request log says what was asked and sent.
    @Test func aRangeOfTheMovie() async throws {
        try await withFixtureServer(capture: capture, mode: .ideal) { baseURL, fixture in
            var request = URLRequest(url: baseURL.appendingPathComponent("moov-at-end.mp4"))
            request.setValue("bytes=0-1023", forHTTPHeaderField: "Range")
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 206)
            #expect(data.count == 1024)

            let asked = await fixture.requests(matching: RequestPattern(method: "GET", path: "/moov-at-end.mp4"))
            #expect(asked.map(\.range) == ["bytes=0-1023"])
            #expect(asked.map(\.status) == [206])
            #expect(asked.map(\.bodyBytes) == [1024])
        }
    }

    /// The same fetch through rangetap's recording proxy, in front of the fixture origin as a
    /// reverse proxy (`upstream`): URLSession fetches from the proxy's URL, and the capture holds
    /// the exchange with its Range, status and bytes. (On Linux, URLSession ignores
    /// `connectionProxyDictionary`: a forward proxy needs another client, see the next test.)
    @Test func theFetchRecordedByTheProxy() async throws {
        try await withFixtureServer(capture: capture, mode: .ideal) { origin, _ in
            try await withRecordingProxy(configure: { $0.upstream = origin.absoluteString }) { proxyURL, recording in
                var request = URLRequest(url: proxyURL.appendingPathComponent("moov-at-end.mp4"))
                request.setValue("bytes=100-199", forHTTPHeaderField: "Range")
                let (data, _) = try await URLSession.shared.data(for: request)
                #expect(data.count == 100)

                let exchanges = try await recording.exchanges()
                #expect(exchanges.map(\.path) == ["/moov-at-end.mp4"])
                #expect(exchanges.map(\.requestRange) == ["bytes=100-199"])
                #expect(exchanges.map(\.status) == [206])
                #expect(exchanges.map(\.bytesReceived) == [100])
                #expect(try exchanges.first.map(recording.body(of:)) == data)
            }
        }
    }

    /// A client that takes a forward proxy setting, here curl (`-x`), run as a process.
    @Test func aForwardProxyFetchWithCurl() async throws {
        try await withFixtureServer(capture: capture, mode: .ideal) { origin, fixture in
            try await withRecordingProxy { proxyURL, recording in
                let curl = Process()
                curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                curl.arguments = [
                    "curl", "-sf", "-o", "/dev/null", "--noproxy", "", "-x", proxyURL.absoluteString, "-r", "0-1",
                    origin.appendingPathComponent("moov-at-end.mp4").absoluteString,
                ]
                try curl.run()
                curl.waitUntilExit()
                #expect(curl.terminationStatus == 0)

                #expect(try await recording.exchanges().map(\.requestRange) == ["bytes=0-1"])
                #expect(await fixture.requests.map(\.bodyBytes) == [2])
            }
        }
    }
}
