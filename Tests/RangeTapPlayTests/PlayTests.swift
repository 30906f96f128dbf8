import Foundation
import RangeTapCore
import RangeTapPlay
import RangeTapTestSupport
import Testing

/// `rangetap play`: the pattern scripts step by step without sockets, then the libcurl player
/// against real servers (nginx, Python's http.server) and through the recording proxy.
@Suite
struct PlayTests {
    // MARK: - A perfect server, for the pure tests

    /// Answers `request` as a conforming server holding `length` bytes would (or, with
    /// `ignoreRange`, as one that sends the whole file with 200), stopping at the read limit.
    static func answer(_ request: PlannedRequest, length: Int64, ignoreRange: Bool = false) -> FetchOutcome {
        let limit = request.readLimit ?? .max
        if ignoreRange {
            return FetchOutcome(status: 200, contentLength: length, bytesRead: min(length, limit), end: length > limit ? .cancelled : .complete)
        }
        let range = request.range.specs[0].resolved(length: length)!
        return FetchOutcome(
            status: 206, contentRange: "bytes \(range.first)-\(range.last)/\(length)", contentLength: range.count,
            bytesRead: min(range.count, limit), end: range.count > limit ? .cancelled : .complete)
    }

    /// Plays a whole script against ``answer(_:length:ignoreRange:)``.
    static func simulate(_ pattern: PlayPattern, length: Int64, readBytes: Int64 = 256 * 1024, seed: UInt64 = 1, ignoreRange: Bool = false) -> (requests: [PlannedRequest], script: PlayerScript) {
        var script = PlayerScript(pattern: pattern, readBytes: readBytes, seed: seed)
        var requests: [PlannedRequest] = []
        var next = script.next(after: nil)
        while let r = next {
            requests.append(r)
            next = script.next(after: answer(r, length: length, ignoreRange: ignoreRange))
        }
        return (requests, script)
    }

    // MARK: - PlayerScript, no sockets

    @Test func avplayerPatternStepByStep() throws {
        let length: Int64 = 10_000_000
        let n: Int64 = 256 * 1024
        var script = PlayerScript(pattern: .avplayer, readBytes: n, seed: 7)

        let nextProbe = script.next(after: nil)
        let probe = try #require(nextProbe)
        #expect(probe.purpose == .probe)
        #expect(probe.rangeHeader == "bytes=0-1")
        #expect(probe.readLimit == n, "a probe answered 200 must not download the whole file")

        let nextOpen = script.next(after: FetchOutcome(status: 206, contentRange: "bytes 0-1/10000000", contentLength: 2, bytesRead: 2, end: .complete))
        let open = try #require(nextOpen)
        #expect(script.contentLength == length)
        #expect(open.purpose == .open)
        #expect(open.rangeHeader == "bytes=0-")
        #expect(open.readLimit == n)

        // libcurl hands over up to 16 KiB at a time, so a few bytes past the limit arrive: the
        // resume position is still first + readBytes, which keeps the script deterministic.
        let nextResume = script.next(after: FetchOutcome(status: 206, contentRange: "bytes 0-9999999/10000000", bytesRead: n + 11_723, end: .cancelled))
        let resume = try #require(nextResume)
        #expect(resume.purpose == .resume)
        #expect(resume.rangeHeader == "bytes=\(n)-")

        let nextSeek = script.next(after: FetchOutcome(status: 206, contentRange: "bytes \(n)-9999999/10000000", bytesRead: n, end: .cancelled))
        let seek = try #require(nextSeek)
        #expect(seek.purpose == .seek)
        #expect(seek.range.specs == [.from(first: seek.first)])
        #expect((5_700_000...6_300_000).contains(seek.first), "seek to ~60 %: \(seek.first)")

        let nextTail = script.next(after: FetchOutcome(status: 206, contentRange: "bytes \(seek.first)-9999999/10000000", bytesRead: n, end: .cancelled))
        let tail = try #require(nextTail)
        #expect(tail.purpose == .tail)
        #expect(tail.rangeHeader == "bytes=\(length - 65536)-")

        #expect(script.next(after: FetchOutcome(status: 206, contentRange: "bytes \(length - 65536)-9999999/10000000", bytesRead: 65536, end: .complete)) == nil)
        #expect(script.isFinished)
        #expect(script.problems.isEmpty)
        #expect(script.steps.map(\.number) == [1, 2, 3, 4, 5])
        #expect(script.steps.map(\.cancelled) == [false, true, true, true, false])
        #expect(script.steps.map(\.range) == ["bytes=0-1", "bytes=0-", "bytes=\(n)-", "bytes=\(seek.first)-", "bytes=\(length - 65536)-"])
    }

    @Test func theSameSeedGivesTheSameRequests() {
        for pattern in PlayPattern.allCases {
            let a = Self.simulate(pattern, length: 50_000_000, seed: 42).requests
            let b = Self.simulate(pattern, length: 50_000_000, seed: 42).requests
            #expect(a == b, "\(pattern)")
        }
        let seeks1 = Self.simulate(.seeky, length: 50_000_000, seed: 1).requests.map(\.first)
        let seeks2 = Self.simulate(.seeky, length: 50_000_000, seed: 2).requests.map(\.first)
        #expect(seeks1 != seeks2)
    }

    @Test func seekyProbesThenSeeksFiveTimesInsideTheFile() {
        let length: Int64 = 8_000_000
        let (requests, script) = Self.simulate(.seeky, length: length, seed: 3)
        #expect(requests.map(\.purpose) == [.probe, .seek, .seek, .seek, .seek, .seek])
        #expect(requests.dropFirst().allSatisfy { $0.first >= 0 && $0.first < length && $0.readLimit == 256 * 1024 })
        #expect(Set(requests.dropFirst().map(\.first)).count == 5)
        #expect(script.problems.isEmpty)
    }

    @Test func linearReadsEverythingAndAcceptsA200() {
        var script = PlayerScript(pattern: .linear)
        let r = script.next(after: nil)
        #expect(r?.rangeHeader == "bytes=0-")
        #expect(r?.readLimit == nil)
        #expect(script.next(after: FetchOutcome(status: 200, contentLength: 1000, bytesRead: 1000, end: .complete)) == nil)
        #expect(script.problems.isEmpty)
        #expect(script.contentLength == 1000)
        #expect(PlayResult(script).conforms)
    }

    @Test func aServerIgnoringRangeIsReportedAndStaysBounded() throws {
        let length: Int64 = 100_000_000
        let n: Int64 = 64 * 1024
        let (requests, script) = Self.simulate(.avplayer, length: length, readBytes: n, ignoreRange: true)
        #expect(requests.count == 5, "the script goes on, so the capture shows every ignored range")
        #expect(requests.allSatisfy { ($0.readLimit ?? .max) <= 64 * 1024 })
        #expect(script.contentLength == length, "learnt from the 200's Content-Length")
        #expect(script.serverIgnoredRange)
        let result = PlayResult(script)
        #expect(!result.conforms)
        #expect(result.totalBytes <= 5 * n)
        #expect(result.verdict == "the server ignored Range; a player would download the whole file")
        let first = try #require(script.problems.first)
        #expect(first.kind == .ignoredRange)
        #expect(first.message.contains("asked for Range: bytes=0-1, got 200"))
        #expect(script.steps[0].problem?.contains("the server ignored Range") == true)
    }

    @Test func aWrongContentRangeIsReported() throws {
        var script = PlayerScript(pattern: .avplayer, readBytes: 1000)
        _ = script.next(after: nil)
        _ = script.next(after: FetchOutcome(status: 206, contentRange: "bytes 0-1/5000", bytesRead: 2, end: .complete))
        // Asked bytes=0-, got a range that starts elsewhere.
        let next = script.next(after: FetchOutcome(status: 206, contentRange: "bytes 100-4999/5000", bytesRead: 1000, end: .cancelled))
        #expect(next != nil)
        #expect(script.problems.map(\.kind) == [.wrongContentRange])
        #expect(script.problems[0].message.contains("starting at byte 100 instead of 0"))
        // A 206 that ends short of its Content-Range.
        var short = PlayerScript(pattern: .seeky)
        _ = short.next(after: nil)
        _ = short.next(after: FetchOutcome(status: 206, contentRange: "bytes 0-1/5000", bytesRead: 1, end: .complete))
        #expect(short.problems.map(\.kind) == [.wrongBodyLength])
        // No Content-Range at all.
        var none = PlayerScript(pattern: .seeky)
        _ = none.next(after: nil)
        #expect(none.next(after: FetchOutcome(status: 206, bytesRead: 2, end: .complete)) == nil, "a probe without a usable Content-Range ends the script")
        #expect(none.problems.map(\.kind) == [.wrongContentRange])
    }

    @Test func aProbeThatFailsEndsTheScript() {
        var notFound = PlayerScript(pattern: .avplayer)
        _ = notFound.next(after: nil)
        #expect(notFound.next(after: FetchOutcome(status: 404, contentLength: 9, bytesRead: 9, end: .complete)) == nil)
        #expect(notFound.problems.map(\.kind) == [.badStatus])
        #expect(notFound.isFinished)

        var star = PlayerScript(pattern: .avplayer)
        _ = star.next(after: nil)
        #expect(star.next(after: FetchOutcome(status: 206, contentRange: "bytes 0-1/*", bytesRead: 2, end: .complete)) == nil)
        #expect(star.problems.map(\.kind) == [.unknownLength])
    }

    @Test func aSmallFileSkipsTheResume() {
        // 100 KiB: the open request reads it all, so playback seeks next.
        let (requests, script) = Self.simulate(.avplayer, length: 100 * 1024)
        #expect(requests.map(\.purpose) == [.probe, .open, .seek, .tail])
        #expect(requests.last?.rangeHeader == "bytes=\(100 * 1024 - 65536)-")
        #expect(script.problems.isEmpty)
    }

    @Test func stepsPrintAsOneLineAndAsJSON() throws {
        let step = PlayStep(number: 2, purpose: .open, range: "bytes=0-", status: 206, contentRange: "bytes 0-99/100", contentLength: 100, bytes: 50, ms: 12.345, end: .cancelled, reusedConnection: true, problem: nil)
        #expect(step.line.contains("bytes=0-"))
        #expect(step.line.contains("206"))
        #expect(step.line.contains("bytes 0-99/100"))
        #expect(step.line.contains("50 B"))
        #expect(step.line.contains("12.3 ms"))
        #expect(step.line.hasSuffix("cancelled"))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode([step])) as? [[String: Any]]
        #expect(json?.first?["range"] as? String == "bytes=0-")
        #expect(json?.first?["cancelled"] as? Bool == true)
        #expect(json?.first?["status"] as? Int == 206)
    }

    // MARK: - The player against real servers

    /// Real peers; serialized because they share the machine's ports and the media.
    @Suite(.serialized)
    struct Live {
        let media: String
        let nginx: NginxServer

        init() throws {
            media = try Media.directory()
            // A 1 MB/s "network" (256 KiB take about 0.25 s): on bare loopback the proxy could
            // read a whole remainder before the player's cancel reaches it, and record no cancel.
            nginx = try NginxServer(root: media, extraServerConfig: "limit_rate 1m;")
        }

        func fileSize(_ name: String) throws -> Int64 {
            let attributes = try FileManager.default.attributesOfItem(atPath: media + "/" + name)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }

        @Test func avplayerThroughTheProxyShowsProbeCancelsAndASeek() async throws {
            let size = try fileSize("moov-at-end.mp4")
            let file = try Data(contentsOf: URL(fileURLWithPath: media + "/moov-at-end.mp4"))
            let n: Int64 = 256 * 1024
            let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
            let result = try await ScriptedPlayer.run(url: nginx.url("moov-at-end.mp4"), pattern: .avplayer, proxy: proxy.url, readBytes: n, seed: 5)
            let capture = try await proxy.stopAndRead()

            #expect(result.conforms, "\(result.problems)")
            #expect(result.contentLength == size)
            #expect(result.steps.map(\.status) == [206, 206, 206, 206, 206])
            #expect(result.steps.map(\.cancelled) == [false, true, true, true, false])
            #expect(result.steps.allSatisfy { $0.bytes <= n + 16384 })

            let ex = capture.exchanges
            try #require(ex.count == 5, "\(ex.map { $0.requestRange ?? "-" })")
            // The probe.
            #expect(ex[0].requestRange == "bytes=0-1")
            #expect(ex[0].status == 206)
            #expect(ex[0].contentRange == "bytes 0-1/\(size)")
            #expect(ex[0].outcome == .complete)
            // Open-ended requests, cancelled by the player.
            #expect(ex[1].requestRange == "bytes=0-")
            #expect(ex[2].requestRange == "bytes=\(n)-")
            for e in ex[1...3] {
                #expect(e.requestRange?.hasSuffix("-") == true)
                #expect(e.outcome == .cancelled, "exchange \(e.id) \(e.requestRange ?? "")")
                #expect(e.bytesReceived < size - 1_000_000, "the proxy stopped reading once the player hung up")
            }
            // The seek, to about 60 %.
            let seekStart = try #require(ex[3].chunks.first?.resourceOffset)
            #expect(seekStart > size * 55 / 100 && seekStart < size * 65 / 100, "seek at \(seekStart) of \(size)")
            // The end of the file, read to its end.
            #expect(ex[4].requestRange == "bytes=\(size - 65536)-")
            #expect(ex[4].outcome == .complete)
            #expect(ex[4].bytesReceived == 65536)
            // The probe's connection is kept alive for the next request; every cancel closes its
            // connection, so the request after it comes on a new one.
            #expect(ex[1].connection == ex[0].connection)
            #expect(ex[2].connection != ex[1].connection)
            #expect(ex[3].connection != ex[2].connection)
            #expect(ex[4].connection != ex[3].connection)
            let closes = capture.events.compactMap { e -> ConnectionCloseEvent? in
                if case .connectionClose(let c) = e { return c }
                return nil
            }
            #expect(closes.filter { $0.by == .client }.count >= 3)
            // What the proxy recorded is the file's bytes at the offsets claimed.
            for e in ex where e.bytesReceived > 0 {
                let start = Int(try #require(e.chunks.first?.resourceOffset))
                let body = try capture.body(of: e)
                #expect(body == file[start..<start + body.count], "exchange \(e.id)")
            }
        }

        @Test func theCommandPrintsJSONAndExitsZeroAgainstNginx() async throws {
            let proxy = try await ProxyHarness()
            let r = try runCommand(Paths.rangetap, ["play", nginx.url("faststart.mp4"), "--pattern", "seeky", "--proxy", proxy.url, "--seed", "9", "--json"], timeout: 60)
            let capture = try await proxy.stopAndRead()
            #expect(r.status == 0, "\(r.stderr)")
            let parsed = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]]
            let steps = try #require(parsed, "\(r.text)")
            #expect(steps.count == 6)
            #expect(steps.first?["range"] as? String == "bytes=0-1")
            #expect(steps.allSatisfy { $0["status"] as? Int == 206 })
            #expect(capture.exchanges.map(\.requestRange) == steps.map { $0["range"] as? String })

            let text = try runCommand(Paths.rangetap, ["play", nginx.url("faststart.mp4"), "--pattern", "seeky", "--seed", "9"], timeout: 60)
            #expect(text.status == 0, "\(text.stderr)")
            let lines = text.text.split(separator: "\n")
            #expect(lines.count == 6)
            #expect(lines.first?.contains("bytes=0-1") == true)
            #expect(lines.dropFirst().allSatisfy { $0.contains("206") })
        }

        @Test func pythonHTTPServerIgnoresRangeAndTheReadsStayBounded() async throws {
            let python = try PythonHTTPServer(root: media)
            let size = try fileSize("faststart.mp4")
            let n: Int64 = 64 * 1024
            let result = try await ScriptedPlayer.run(url: python.url("faststart.mp4"), pattern: .avplayer, readBytes: n)
            #expect(result.serverIgnoredRange)
            #expect(!result.conforms)
            #expect(result.verdict == "the server ignored Range; a player would download the whole file")
            #expect(result.steps.count == 5)
            #expect(result.steps.allSatisfy { $0.status == 200 && $0.cancelled && $0.bytes <= n + 16384 })
            #expect(result.totalBytes < size / 4, "read \(result.totalBytes) of a \(size)-byte file")

            let r = try runCommand(Paths.rangetap, ["play", python.url("faststart.mp4"), "--chunk-bytes", "64k"], timeout: 60)
            #expect(r.status == 1)
            #expect(r.stderr.contains("the server ignored Range; a player would download the whole file"), "\(r.stderr)")

            // A missing file ends the script at its first answer.
            let missing = try await ScriptedPlayer.run(url: python.url("no-such-file.mp4"), pattern: .avplayer)
            #expect(missing.steps.map(\.status) == [404])
            #expect(missing.problems.map(\.kind) == [.badStatus])
        }

        @Test func linearReadsTheWholeFile() async throws {
            let python = try PythonHTTPServer(root: media)
            let size = try fileSize("fragmented.mp4")
            let result = try await ScriptedPlayer.run(url: python.url("fragmented.mp4"), pattern: .linear)
            #expect(result.conforms, "\(result.problems)")
            #expect(result.steps.count == 1)
            #expect(result.steps.first?.status == 200)
            #expect(result.steps.first?.bytes == size)
            #expect(result.steps.first?.cancelled == false)
        }

        @Test func anUnreachableServerIsAClearError() async throws {
            let port = try freePort()
            let url = "http://127.0.0.1:\(port)/a.mp4"
            await #expect {
                try await ScriptedPlayer.run(url: url, pattern: .avplayer)
            } throws: { error in
                guard let e = error as? PlayError else { return false }
                return e.curlCode == 7 && e.description.contains("cannot fetch \(url)") && e.description.contains("libcurl error 7")
            }
            let r = try runCommand(Paths.rangetap, ["play", url], timeout: 30)
            #expect(r.status == 2)
            #expect(r.stderr.contains("libcurl error 7"), "\(r.stderr)")
            #expect(r.stderr.contains("Couldn't connect") || r.stderr.contains("Failed to connect"), "\(r.stderr)")
            #expect(r.text.isEmpty)

            let viaProxy = try runCommand(Paths.rangetap, ["play", nginx.url("faststart.mp4"), "--proxy", "http://127.0.0.1:\(port)"], timeout: 30)
            #expect(viaProxy.status == 2)
            #expect(viaProxy.stderr.contains("through the proxy http://127.0.0.1:\(port)"), "\(viaProxy.stderr)")

            let bad = try runCommand(Paths.rangetap, ["play", url, "--pattern", "vlc"], timeout: 30)
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("use one of avplayer, linear, seeky"))
        }
    }
}
