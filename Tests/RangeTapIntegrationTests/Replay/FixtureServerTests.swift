import Foundation
import RangeTapCore
import RangeTapMedia
@testable import RangeTapReplay
import RangeTapTestSupport
import Synchronization
import Testing

/// `rangetap serve` as a library: the faithful fixture reproduces a capture byte for byte (a
/// capture of the replay equals the original), the ideal fixture answers ranges as RFC 9110 says.
@Suite(.serialized)
struct FixtureServerTests {
    // MARK: Helpers

    /// What curl saw.
    struct Fetched {
        var status: Int
        var head: [String]
        var body: Data
        var exit: Int32

        func header(_ name: String) -> String? {
            head.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map {
                String($0.drop { $0 != ":" }.dropFirst()).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// Fetches `url` directly (no proxy) with curl.
    func fetch(_ url: String, _ args: [String] = []) throws -> Fetched {
        let dir = Paths.temporaryDirectory("fetch")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runCommand(
            try Paths.tool("curl"), ["-s", "--noproxy", "*", "-D", dir + "/head", "-o", dir + "/body"] + args + [url])
        let headText = (try? String(contentsOfFile: dir + "/head", encoding: .isoLatin1)) ?? ""
        // The last head (after any 1xx).
        let blocks = headText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        let lines = (blocks.last ?? "").components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        let body = (try? Data(contentsOf: URL(fileURLWithPath: dir + "/body"))) ?? Data()
        return Fetched(status: status, head: Array(lines.dropFirst()), body: body, exit: r.status)
    }

    func curlThrough(_ proxy: ProxyHarness, _ url: String, _ args: [String]) throws -> CommandResult {
        try runCommand(
            try Paths.tool("curl"), ["-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null"] + args + [url])
    }

    // MARK: Faithful

    /// The quirk origin's defects, each asked with a range.
    static let quirkRequests: [(path: String, range: String)] = [
        ("/lowercase", "0-99"),
        ("/bare-lf", "0-9"),
        ("/dup", "100-199"),
        ("/slow?delay_ms=20&piece=4096", "0-40959"),
        ("/drop", "0-99999"),
        ("/interim", "0-9"),
        ("/chunked", "0-24999"),
        ("/close", "5-14"),
        ("/http10", "0-9"),
    ]

    @Test func faithfulReplayOfTheQuirkOriginRecordsTheSameCapture() async throws {
        let origin = try QuirkOrigin(size: 1 << 20)
        let first = try await ProxyHarness()
        for r in Self.quirkRequests { _ = try curlThrough(first, origin.url(r.path), ["-r", r.range]) }
        let original = try await first.stopAndRead()
        origin.stop()
        #expect(original.exchanges.count == Self.quirkRequests.count)

        let served = Mutex<[String]>([])
        let fixture = try FixtureServer(capturePath: first.capturePath, mode: .faithful) { line in
            served.withLock { $0.append(line) }
        }
        let port = try await fixture.start()
        #expect(port == fixture.port && port > 0)
        let second = try await ProxyHarness()
        for r in Self.quirkRequests {
            _ = try curlThrough(second, "http://127.0.0.1:\(port)\(r.path)", ["-r", r.range])
        }
        let replayed = try await second.stopAndRead()
        await fixture.stop()

        #expect(replayed.exchanges.count == original.exchanges.count, "\(served.withLock { $0 })")
        for (a, b) in zip(original.exchanges, replayed.exchanges) {
            let what = "\(a.path) \(a.requestRange ?? "")"
            #expect(b.path == a.path)
            // Status and header lines byte for byte (a Date would differ; the quirk origin sends none).
            let noDate = { (lines: [HeaderLine]) in lines.filter { $0.name?.lowercased() != "date" }.map(\.raw) }
            #expect(noDate(b.responseLines) == noDate(a.responseLines), "\(what)")
            #expect(b.interimStatuses == a.interimStatuses, "\(what)")
            // The same body, ended the same way.
            #expect(b.bytesReceived == a.bytesReceived, "\(what)")
            #expect(b.sha256 == a.sha256, "\(what)")
            #expect(try replayed.body(of: b) == original.body(of: a), "\(what)")
            switch (a.outcome, b.outcome) {
            case (.complete, .complete), (.failed, .failed), (.cancelled, .cancelled): break
            default: Issue.record("\(what): recorded \(a.outcome), replayed \(b.outcome)")
            }
            // Chunking and timing within tolerance.
            #expect(
                abs(b.chunkCount - a.chunkCount) <= max(2, a.chunkCount / 4),
                "\(what): \(a.chunkCount) chunks recorded, \(b.chunkCount) replayed")
            let da = try #require(a.durationMs), db = try #require(b.durationMs)
            #expect(abs(db - da) <= max(50, da * 0.5), "\(what): \(da) ms recorded, \(db) ms replayed")
        }
        print(
            "faithful replay: "
                + zip(original.exchanges, replayed.exchanges).map { a, b in
                    String(
                        format: "%@ %d/%d chunks %.1f/%.1f ms", a.path, a.chunkCount, b.chunkCount, a.durationMs ?? -1,
                        b.durationMs ?? -1)
                }.joined(separator: "; "))
        // Interim heads go out as recorded too.
        let interims = { (c: RecordedCapture) in
            c.events("interim").compactMap { e -> [String]? in
                if case .interim(let r) = e { r.lines.map(\.raw) } else { nil }
            }
        }
        #expect(interims(replayed) == interims(original))
        #expect(!interims(original).isEmpty)
        // The slow one kept its pacing: ten 4 KiB pieces 20 ms apart.
        let slow = try #require(replayed.exchanges.first { $0.path.hasPrefix("/slow") })
        #expect(slow.chunkCount >= 8)
        #expect(Double((slow.lastChunkAt ?? 0) - (slow.firstChunkAt ?? 0)) / 1e6 >= 150)
    }

    @Test func faithfulMatchingReusesTheLastMatchAndNamesUnknownRequests() async throws {
        let origin = try QuirkOrigin(size: 1 << 16)
        let proxy = try await ProxyHarness()
        for range in ["0-9", "0-9", "10-19"] { _ = try curlThrough(proxy, origin.url("/normal"), ["-r", range]) }
        _ = try await proxy.stopAndRead()
        let fixture = try FixtureServer(capturePath: proxy.capturePath, mode: .faithful, speed: 0)
        let port = try await fixture.start()
        defer { Task { await fixture.stop() } }
        let url = "http://127.0.0.1:\(port)/normal"
        for _ in 0..<4 {
            let r = try fetch(url, ["-r", "0-9"])
            #expect(r.status == 206)
            #expect(r.body == Data(QuirkOrigin.expectedBytes(0..<10)))
        }
        let r = try fetch(url, ["-H", "Range:  bytes = 10-19"])  // same range, other spelling
        #expect(r.status == 206 && r.body == Data(QuirkOrigin.expectedBytes(10..<20)))
        let missing = try fetch(url, ["-r", "20-29"])
        #expect(missing.status == 404)
        let text = String(decoding: missing.body, as: UTF8.self)
        #expect(text.contains("GET /normal range=bytes=20-29"))
        #expect(text.contains("#3 GET /normal range=bytes=10-19 -> 206"))
        #expect(fixture.traffic.requests == 6)
    }

    @Test func aRecordedCancelSendsWhatWasRecordedThenCloses() async throws {
        let origin = try QuirkOrigin(size: 1 << 20)
        let proxy = try await ProxyHarness()
        // The client gives up after 300 ms of a body trickling in 4 KiB every 30 ms.
        _ = try curlThrough(proxy, origin.url("/slow?delay_ms=30&piece=4096"), ["-r", "0-", "--max-time", "0.3"])
        let capture = try await proxy.stopAndRead()
        let recorded = try #require(capture.exchanges.first)
        #expect(recorded.outcome == .cancelled)
        #expect(recorded.bytesReceived > 0 && recorded.bytesReceived < 1 << 20)

        let fixture = try FixtureServer(capturePath: proxy.capturePath, mode: .faithful)
        let port = try await fixture.start()
        defer { Task { await fixture.stop() } }
        let started = ContinuousClock.now
        let r = try fetch("http://127.0.0.1:\(port)/slow?delay_ms=30&piece=4096", ["-r", "0-"])
        let elapsed = ContinuousClock.now - started
        #expect(r.exit == 18, "curl: transfer closed with bytes remaining")
        #expect(r.status == 206 && r.header("Content-Length") == String(1 << 20))
        #expect(r.body == (try capture.body(of: recorded)))
        #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(3), "paced like the recording: \(elapsed)")
    }

    @Test func exchangeMatchingOrder() {
        func ex(_ id: Int, _ range: String?) -> RecordedExchange {
            RecordedExchange(id: id, method: "GET", path: "/a", range: range, requestAt: 0)
        }
        var index = RecordedExchanges(exchanges: [
            ex(1, "bytes=0-1"), ex(2, nil), ex(3, "bytes=0-1"), ex(4, "bytes=5-"),
        ])
        #expect(index.match(method: "GET", path: "/a", range: "bytes=0-1")?.id == 1)
        #expect(index.match(method: "GET", path: "/a", range: "bytes=0-1")?.id == 3)
        #expect(index.match(method: "GET", path: "/a", range: "bytes=0-1")?.id == 3)
        #expect(index.match(method: "GET", path: "/a", range: nil)?.id == 2)
        #expect(index.match(method: "GET", path: "/a", range: "BYTES=5-")?.id == 4)
        #expect(index.match(method: "HEAD", path: "/a", range: nil) == nil)
        #expect(index.match(method: "GET", path: "/a?x=1", range: nil) == nil)
        #expect(RequestPath.originForm("http://h:1/a/b?x=1#frag") == "/a/b?x=1")
        #expect(RequestPath.originForm("http://h:1") == "/")
        #expect(RequestPath.originForm("/x") == "/x")
    }

    // MARK: Ideal

    @Test func idealAnswersRangesAsRFC9110Says() async throws {
        let media = try Media.directory()
        let file = try Data(contentsOf: URL(fileURLWithPath: media + "/faststart.mp4"))
        let moov = try Data(contentsOf: URL(fileURLWithPath: media + "/moov-at-end.mp4"))
        let fragmented = try Data(contentsOf: URL(fileURLWithPath: media + "/fragmented.mp4"))
        let length = file.count
        let nginx = try NginxServer(root: media)
        let direct = try fetch(nginx.url("faststart.mp4"), ["-I"])
        let proxy = try await ProxyHarness()
        _ = try curlThrough(proxy, nginx.url("faststart.mp4"), [])
        _ = try curlThrough(proxy, nginx.url("fragmented.mp4"), ["-r", "0-999"])
        let probe = try runCommand(
            try Paths.tool("ffprobe"),
            ["-v", "error", "-http_proxy", proxy.url, "-show_entries", "format=duration", nginx.url("moov-at-end.mp4")])
        #expect(probe.status == 0)
        _ = try await proxy.stopAndRead()
        nginx.stop()

        let fixture = try FixtureServer(capturePath: proxy.capturePath, mode: .ideal)
        let port = try await fixture.start()
        defer { Task { await fixture.stop() } }
        let base = "http://127.0.0.1:\(port)"

        // 200: the whole file, with the recorded metadata.
        let full = try fetch(base + "/faststart.mp4")
        #expect(full.status == 200)
        #expect(full.body == file)
        #expect(full.header("Content-Length") == String(length))
        #expect(full.header("Accept-Ranges") == "bytes")
        #expect(full.header("Content-Type") == "video/mp4")
        #expect(full.header("ETag") != nil && full.header("ETag") == direct.header("ETag"))
        #expect(full.header("Last-Modified") == direct.header("Last-Modified"))

        // 206: closed, open-ended and suffix ranges.
        for (range, span) in [
            ("1000-1999", 1000..<2000), ("\(length - 10)-", (length - 10)..<length), ("-300", (length - 300)..<length),
            ("0-\(length * 2)", 0..<length),
        ] {
            let r = try fetch(base + "/faststart.mp4", ["-r", range])
            #expect(r.status == 206, "\(range)")
            #expect(
                r.header("Content-Range") == "bytes \(span.lowerBound)-\(span.upperBound - 1)/\(length)", "\(range)")
            #expect(r.header("Content-Length") == String(span.count))
            #expect(r.body == file.subdata(in: span), "\(range)")
        }

        // Overlapping ranges are coalesced into one.
        let merged = try fetch(base + "/faststart.mp4", ["-r", "0-5,3-9"])
        #expect(
            merged.status == 206 && merged.header("Content-Range") == "bytes 0-9/\(length)"
                && merged.body == file.subdata(in: 0..<10))

        // Several ranges: multipart/byteranges with the right parts.
        let multi = try fetch(base + "/faststart.mp4", ["-r", "10-19,1000-1049,-5"])
        #expect(multi.status == 206)
        let type = try #require(multi.header("Content-Type"))
        #expect(type.hasPrefix("multipart/byteranges; boundary="))
        let parts = Self.multipartParts(multi.body, boundary: String(type.split(separator: "=", maxSplits: 1)[1]))
        #expect(
            parts.map(\.range) == [
                "bytes 10-19/\(length)", "bytes 1000-1049/\(length)", "bytes \(length - 5)-\(length - 1)/\(length)",
            ])
        #expect(
            parts.map(\.data) == [
                file.subdata(in: 10..<20), file.subdata(in: 1000..<1050), file.subdata(in: (length - 5)..<length),
            ])
        #expect(multi.header("Content-Length") == String(multi.body.count))

        // 416: past the end, and bytes never captured.
        let past = try fetch(base + "/faststart.mp4", ["-r", "\(length)-"])
        #expect(past.status == 416 && past.header("Content-Range") == "bytes */\(length)")
        let fragLength = fragmented.count
        let partial = try fetch(base + "/fragmented.mp4", ["-r", "0-999"])
        #expect(partial.status == 206 && partial.body == fragmented.subdata(in: 0..<1000))
        let uncaptured = try fetch(base + "/fragmented.mp4", ["-r", "500-1500"])
        #expect(uncaptured.status == 416 && uncaptured.header("Content-Range") == "bytes */\(fragLength)")
        let whole = try fetch(base + "/fragmented.mp4")
        #expect(whole.status == 503, "the whole representation was never captured")

        // HEAD: the GET head without a body.
        let head = try fetch(base + "/faststart.mp4", ["-I"])
        #expect(head.status == 200 && head.header("Content-Length") == String(length))
        // No body follows a HEAD: the same connection then answers a GET cleanly.
        let headThenGet = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "*", "-I", base + "/faststart.mp4", "--next", "-s", "--noproxy", "*", "-r", "0-9",
                "-o", "/dev/null", "-w", "%{http_code} %{num_connects}", base + "/faststart.mp4",
            ])
        #expect(headThenGet.text.hasSuffix("206 0"), "\(headThenGet.text)")
        // Range is defined for GET only (RFC 9110 §14.2): a HEAD ignores it.
        let headRange = try fetch(base + "/faststart.mp4", ["-I", "-r", "0-99"])
        #expect(
            headRange.status == 200 && headRange.header("Content-Range") == nil
                && headRange.header("Content-Length") == String(length))
        // A HEAD needs no bytes: the length is known even where the bytes were not all captured.
        let headPartial = try fetch(base + "/fragmented.mp4", ["-I"])
        #expect(headPartial.status == 200 && headPartial.header("Content-Length") == String(fragmented.count))

        // If-Range: a matching ETag keeps the range, another one gets the whole file.
        let etag = try #require(full.header("ETag"))
        let ifRange = try fetch(base + "/faststart.mp4", ["-r", "0-9", "-H", "If-Range: \(etag)"])
        #expect(ifRange.status == 206)
        let stale = try fetch(base + "/faststart.mp4", ["-r", "0-9", "-H", "If-Range: \"other\""])
        #expect(stale.status == 200 && stale.body == file)

        // A range syntax error is ignored (whole file); other methods and resources are refused.
        #expect(try fetch(base + "/faststart.mp4", ["-H", "Range: bytes=9-1"]).status == 200)
        #expect(try fetch(base + "/faststart.mp4", ["-X", "POST"]).status == 405)
        let unknown = try fetch(base + "/nope.mp4")
        #expect(
            unknown.status == 404
                && String(decoding: unknown.body, as: UTF8.self).contains("/faststart.mp4 (\(length) bytes"))

        // What ffprobe read of moov-at-end.mp4 is served exactly, whatever the order it came in.
        let analysis = try MediaAnalysis.analyze(path: proxy.capturePath)
        let spans = analysis.exchanges.filter { $0.record.path == "/moov-at-end.mp4" }.compactMap(\.resourceSpan)
        #expect(!spans.isEmpty)
        for span in spans {
            let r = try fetch(base + "/moov-at-end.mp4", ["-r", "\(span.lowerBound)-\(span.upperBound - 1)"])
            #expect(r.status == 206)
            #expect(r.body == moov.subdata(in: Int(span.lowerBound)..<Int(span.upperBound)))
        }
        // Keep-alive: curl reuses one connection for several URLs.
        let twice = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "*", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects} ", "-r", "0-9",
                base + "/faststart.mp4", base + "/faststart.mp4",
            ])
        #expect(twice.text == "1 0 ")
    }

    @Test func idealPlannerCoalescesOnlyWhatOverlaps() {
        let r = { (a: Int64, b: Int64) in ByteRange(first: a, last: b) }
        #expect(RangeAnswerPlanner.coalesce([r(50, 59), r(0, 9)]) == [r(50, 59), r(0, 9)])
        #expect(RangeAnswerPlanner.coalesce([r(0, 9), r(10, 19)]) == [r(0, 19)])
        #expect(RangeAnswerPlanner.coalesce([r(5, 9), r(0, 6), r(100, 100)]) == [r(0, 9), r(100, 100)])
    }

    @Test func aCaptureWithoutBodiesIsRefused() async throws {
        let origin = try QuirkOrigin(size: 1 << 12)
        let proxy = try await ProxyHarness { $0.recordBodies = false }
        _ = try curlThrough(proxy, origin.url("/normal"), ["-r", "0-9"])
        _ = try await proxy.stopAndRead()
        #expect(throws: FixtureError.noBodies(proxy.capturePath)) {
            try FixtureServer(capturePath: proxy.capturePath, mode: .faithful)
        }
    }

    /// The parts of a multipart/byteranges body: each part's Content-Range and bytes.
    static func multipartParts(_ body: Data, boundary: String) -> [(range: String, data: Data)] {
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [(String, Data)] = []
        var cursor = body.startIndex
        var starts: [Data.Index] = []
        while let r = body.range(of: delimiter, in: cursor..<body.endIndex) {
            starts.append(r.lowerBound)
            cursor = r.upperBound
        }
        for (i, start) in starts.enumerated() where i + 1 < starts.count {
            var part = body[(start + delimiter.count)..<starts[i + 1]]
            if part.starts(with: Data("\r\n".utf8)) { part = part.dropFirst(2) }
            guard let sep = part.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: part[..<sep.lowerBound], as: UTF8.self)
            var data = Data(part[sep.upperBound...])
            if data.suffix(2) == Data("\r\n".utf8) { data = data.dropLast(2) }
            let range =
                head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-range:") }.map {
                    String($0.dropFirst("content-range:".count)).trimmingCharacters(in: .whitespaces)
                } ?? ""
            parts.append((range, Data(data)))
        }
        return parts
    }
}
