import Foundation
import RangeTapCore
import RangeTapMedia
@testable import RangeTapReport
import RangeTapTestSupport
import Testing

/// A real capture for the report tests, recorded once per test run through the in-process
/// proxy against the quirk origin:
///
/// 1. `GET /normal` Range `bytes=0-99999` with `X-Note: <script>…` → 206, complete
/// 2. `GET /slow?…` Range `bytes=100000-299999` → 206 in many chunks, complete
/// 3. `GET /slow?…` Range `bytes=300000-` read by `head -c 100000` → cancelled
/// 4. `GET /drop` Range `bytes=0-99999` → 206, half the body, then the origin hangs up → error
/// 5. and 6. `GET /normal` Ranges `bytes=500000-599999`, `bytes=600000-699999` on one connection
enum ReportFixture {
    /// The exchanges' Range values, in order.
    static let ranges = [
        "bytes=0-99999", "bytes=100000-299999", "bytes=300000-", "bytes=0-99999", "bytes=500000-599999",
        "bytes=600000-699999",
    ]
    /// The header line that must come out escaped.
    static let scriptHeader = "X-Note: <script>alert(\"rangetap\")</script> & more"

    /// The capture directory.
    static let capture = Task<String, any Error> {
        let origin = try QuirkOrigin(size: 4 << 20)
        defer { origin.stop() }
        let proxy = try await ProxyHarness()
        let curl = try Paths.tool("curl")
        let slow = origin.url("/slow?delay_ms=5&piece=16384")
        func run(_ args: [String]) throws -> CommandResult {
            try runCommand(curl, ["-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null"] + args)
        }
        _ = try run(["-H", scriptHeader, "-r", "0-99999", origin.url("/normal")])
        _ = try run(["-r", "100000-299999", slow])
        let cut = try runCommand(
            "/bin/sh",
            [
                "-c",
                "\(curl) -s --noproxy '' -x \(proxy.url) -H 'Range: bytes=300000-' '\(slow)' | head -c 100000 | wc -c",
            ])
        guard cut.text.trimmingCharacters(in: .whitespacesAndNewlines) == "100000" else {
            throw TestFailure("head read \(cut.text)")
        }
        try await Task.sleep(for: .milliseconds(300))  // the proxy sees the hang-up
        _ = try run(["-r", "0-99999", origin.url("/drop")])
        _ = try run([
            "-r", "500000-599999", origin.url("/normal"), "--next", "-s", "--noproxy", "", "-x", proxy.url, "-o",
            "/dev/null", "-r", "600000-699999", origin.url("/normal"),
        ])
        let recorded = try await proxy.stopAndRead()
        guard recorded.exchanges.count == ranges.count else {
            throw TestFailure("recorded \(recorded.exchanges.map(\.summaryLine))")
        }
        return proxy.capturePath
    }

    /// The capture analysed with its chunks.
    static func analysis() async throws -> CaptureAnalysis {
        try MediaAnalysis.analyze(path: try await capture.value, keepChunks: true)
    }
}

@Suite struct HTMLReportTests {
    /// The part of the page holding the waterfall lanes.
    func lanes(_ html: String) throws -> Substring {
        let start = try #require(html.range(of: "<section class=\"lane\""))
        let end = try #require(html.range(of: "<section id=\"findings\""))
        return html[start.lowerBound..<end.lowerBound]
    }

    func count(_ needle: String, in haystack: some StringProtocol) -> Int {
        haystack.components(separatedBy: needle).count - 1
    }

    @Test func oneBarPerExchangeWithCancelAndErrorMarks() async throws {
        let analysis = try await ReportFixture.analysis()
        let html = HTMLReport.render(analysis)
        let lanes = try lanes(html)
        #expect(count("<g class=\"ex ", in: lanes) == 6)
        #expect(count("class=\"bar ", in: lanes) == 6)
        for e in analysis.exchanges {
            let id = e.record.id
            let group = try #require(lanes.range(of: "data-ex=\"\(id)\">"))
            let rest = lanes[group.upperBound...]
            let close = try #require(rest.range(of: "</g></a>"))
            let groupText = rest[..<close.lowerBound]
            #expect(count("class=\"bar ", in: groupText) == 1, "exchange \(id) has one bar")
            #expect(groupText.contains("polyline"), "exchange \(id) received bytes, so its bar is a polyline")
        }
        // Three resources: /normal, /slow?…, /drop.
        #expect(count("<section class=\"lane\"", in: html) == 3)
        #expect(html.contains("<select id=\"lane-select\">"))
        // One cancel mark, on exchange 3; one error mark, on exchange 4.
        #expect(count("<g class=\"mark-cancel\"", in: lanes) == 1)
        #expect(lanes.contains("<g class=\"mark-cancel\" data-ex=\"3\">"))
        #expect(count("<g class=\"mark-error\"", in: lanes) == 1)
        #expect(lanes.contains("<g class=\"mark-error\" data-ex=\"4\">"))
        // Axes are labelled.
        #expect(html.contains("time since capture start (ms)"))
        #expect(html.contains("offset in resource"))
        #expect(html.contains(">1 MiB</text>") || html.contains(">2 MiB</text>"))
    }

    @Test func hoverTextAndTableCarryTheExchangeDetails() async throws {
        let analysis = try await ReportFixture.analysis()
        let html = HTMLReport.render(analysis)
        for (i, e) in analysis.exchanges.enumerated() {
            #expect(e.record.requestRange == ReportFixture.ranges[i])
            #expect(html.contains("Range: \(ReportFixture.ranges[i])"), "tooltip of #\(e.record.id)")
            #expect(html.contains("<tr id=\"ex-\(e.record.id)\""))
        }
        let cancelled = analysis.exchanges[2].record
        #expect(
            html.contains(
                "cancelled: delivered \(cancelled.bytesDelivered ?? -1) of \(cancelled.bytesReceived) received"))
        #expect(html.contains("Content-Range: bytes 100000-299999/\(4 << 20)"))
        #expect(html.contains("<tr id=\"ex-3\" class=\"cancelled\">"))
        #expect(html.contains("<tr id=\"ex-4\" class=\"failed\">"))
        // Findings, by severity, with evidence.
        #expect(html.contains("<code class=\"code\">truncated</code>"))
        #expect(html.contains("<code class=\"code\">cancelled</code>"))
        #expect(html.contains("<pre class=\"evidence\">"))
    }

    @Test func captureTextIsEscaped() async throws {
        let html = HTMLReport.render(try await ReportFixture.analysis())
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("X-Note: &lt;script&gt;alert(&quot;rangetap&quot;)&lt;/script&gt; &amp; more"))
        #expect(count("<script", in: html) == 1, "only the page's own script")
    }

    @Test func nothingIsLoadedFromTheNetwork() async throws {
        let html = HTMLReport.render(try await ReportFixture.analysis())
        #expect(html.contains("http://127.0.0.1:"), "the URLs are shown, as text")
        // Inside tags (where a reference could be), no scheme and no network-path reference.
        let tags = try Regex("<[^>]*>")
        for match in html.matches(of: tags) {
            let tag = html[match.range]
            #expect(
                !tag.contains("://") && !tag.contains("src=") && !tag.contains("href=\"/") && !tag.contains("xlink:"),
                "tag \(tag)")
            if tag.contains("href=") { #expect(tag.contains("href=\"#"), "only in-page links: \(tag)") }
        }
        #expect(!html.contains("@import"))
        #expect(!html.contains("url("))
    }

    @Test func writeCreatesTheFile() async throws {
        let path = Paths.temporaryDirectory("html") + "/report.html"
        try HTMLReport.write(analysis: try await ReportFixture.analysis(), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("<!DOCTYPE html>"))
        #expect(throws: ReportError.self) {
            try HTMLReport.write(analysis: CaptureAnalysis.empty, to: "/nonexistent-dir/x.html")
        }
    }

    // MARK: Without a network

    @Test func controlBytesAndLatin1AreShownNotInterpreted() {
        #expect(HTMLEscaping.escape("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;")
        #expect(HTMLEscaping.escape("x\u{01}y\u{85}z\u{E9}") == "x\\x01y\\x85z\u{E9}")
        #expect(HTMLEscaping.headerLine("Range: bytes=0-\r\n") == "Range: bytes=0-<span class=\"eol\">\\r\\n</span>")
        #expect(HTMLEscaping.headerLine("X: <a>\n") == "X: &lt;a&gt;<span class=\"eol\">\\n</span>")

        var b = CaptureAnalysisBuilder(header: .sample, keepChunks: true)
        b.apply(.connectionOpen(.init(t: 0, connection: 1, peer: "127.0.0.1:1", sendBuffer: nil)))
        b.apply(
            .request(
                .init(
                    t: 1_000_000, exchange: 1, connection: 1, method: "GET", target: "/a<b>?q=\"1\"",
                    version: "HTTP/1.1", url: "http://h/a<b>?q=\"1\"",
                    headers: [
                        HeaderLine(raw: "Range: bytes=0-9\r\n"),
                        HeaderLine(raw: Latin1.string([0x58, 0x3A, 0x20, 0x01, 0x85, 0xE9, 0x3C, 0x0D, 0x0A])),
                    ])))
        b.apply(
            .response(
                .init(
                    t: 2_000_000, exchange: 1, status: 206,
                    lines: [
                        HeaderLine(raw: "HTTP/1.1 206 Partial Content\r\n"),
                        HeaderLine(raw: "Content-Range: bytes 0-9/10\r\n"),
                        HeaderLine(raw: "X-Evil: </pre><img src=x onerror=alert(1)>\n"), HeaderLine(raw: "\r\n"),
                    ], reused: false, upstreamPort: 1)))
        b.apply(.chunk(.init(t: 3_000_000, exchange: 1, size: 10, offset: 0, resourceOffset: 0, bodyOffset: nil)))
        b.apply(.end(.init(t: 4_000_000, exchange: 1, bytes: 10, sha256: "")))
        let html = HTMLReport.render(b.finish())
        #expect(html.contains("X: \\x01\\x85\u{E9}&lt;"))
        #expect(!html.contains("\u{85}"))
        #expect(!html.contains("<img"))
        #expect(html.contains("X-Evil: &lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;<span class=\"eol\">\\n</span>"))
        #expect(html.contains("/a&lt;b&gt;?q=&quot;1&quot;"))
    }

    @Test func bigCapturesStayBounded() {
        // 10,000 exchanges of 60 chunks each on one resource, 40 connections.
        var b = CaptureAnalysisBuilder(header: .sample, keepChunks: true)
        let size: Int64 = 600 * 1000
        var t: Int64 = 0
        for conn in 1...40 {
            b.apply(.connectionOpen(.init(t: 0, connection: conn, peer: "127.0.0.1:\(conn)", sendBuffer: nil)))
        }
        for ex in 1...10_000 {
            let first = Int64(ex % 1000) * size
            let conn = ex % 40 + 1
            b.apply(
                .request(
                    .init(
                        t: t, exchange: ex, connection: conn, method: "GET", target: "/big.mp4", version: "HTTP/1.1",
                        url: "http://h/big.mp4",
                        headers: [HeaderLine(raw: "Range: bytes=\(first)-\(first + size - 1)\r\n")])))
            b.apply(
                .response(
                    .init(
                        t: t + 500_000, exchange: ex, status: 206,
                        lines: [
                            HeaderLine(raw: "HTTP/1.1 206 Partial Content\r\n"),
                            HeaderLine(raw: "Content-Range: bytes \(first)-\(first + size - 1)/\(1000 * size)\r\n"),
                            HeaderLine(raw: "\r\n"),
                        ], reused: true, upstreamPort: 1)))
            for i in 0..<60 {
                b.apply(
                    .chunk(
                        .init(
                            t: t + 1_000_000 + Int64(i) * 100_000, exchange: ex, size: 10_000,
                            offset: Int64(i) * 10_000, resourceOffset: first + Int64(i) * 10_000, bodyOffset: nil)))
            }
            if ex % 10 == 0 {
                b.apply(
                    .cancel(
                        .init(
                            t: t + 8_000_000, exchange: ex, delivered: 300_000, received: size, sendBuffer: 16384,
                            sha256: "")))
            } else {
                b.apply(.end(.init(t: t + 7_000_000, exchange: ex, bytes: size, sha256: "")))
            }
            t += 2_000_000
        }
        let analysis = b.finish()
        let html = HTMLReport.render(analysis)
        let bytes = html.utf8.count
        #expect(bytes < 8 << 20, "10,000 exchanges render to \(bytes) bytes")
        #expect(count("<g class=\"mark-cancel\" data-ex", in: html) == 1000)
        let waterfall = WaterfallSVG(analysis)
        #expect(waterfall.maxPointsPerBar <= 200)
        print(
            "10,000 exchanges × 60 chunks: \(bytes / 1024) KiB of HTML, \(waterfall.maxPointsPerBar) points per bar at most"
        )
    }

    @Test func thinningKeepsEndsAndCapsPoints() {
        let points = (0..<5000).map { (Double($0) * 0.1, Double($0)) }
        let thinned = BarGeometry.thin(points, cap: 200)
        #expect(thinned.count == 200)
        #expect(thinned.first! == points.first!)
        #expect(thinned.last! == points.last!)
        let dense = (0..<1000).map { _ in (10.0, 10.0) } + [(11.0, 12.0)]
        #expect(BarGeometry.thin(dense, cap: 200).count == 2)
    }

    @Test func axisTicksAreRound() {
        let x = AxisScale(lower: 993.2, upper: 2140.7, pixelStart: 0, pixelEnd: 1000)
        #expect(x.decimalTicks(count: 10).map(\.label) == ["1000", "1200", "1400", "1600", "1800", "2000"])
        let small = AxisScale(lower: 0.12, upper: 0.31, pixelStart: 0, pixelEnd: 1000)
        #expect(small.decimalTicks(count: 4).map(\.label) == ["0.15", "0.2", "0.25", "0.3"])
        let y = AxisScale(lower: 0, upper: 1_048_576, pixelStart: 400, pixelEnd: 0)
        #expect(y.byteTicks(count: 6).map(\.label) == ["0", "256 KiB", "512 KiB", "768 KiB", "1 MiB"])
    }
}

extension CaptureHeader {
    /// A header for captures built in memory.
    static let sample = CaptureHeader(
        tool: "rangetap 0.1.0", startedAt: "2026-11-22T18:16:44.846Z", bodies: false, redacted: true,
        listen: "127.0.0.1:8080", upstream: nil)
}

extension CaptureAnalysis {
    /// An analysis of no events.
    static var empty: CaptureAnalysis { CaptureAnalysisBuilder(header: .sample, keepChunks: true).finish() }
}
