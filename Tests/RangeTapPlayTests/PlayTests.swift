import Foundation
import RangeTapCore
import RangeTapPlay
import RangeTapTestSupport
import Testing

/// `rangetap play`: the pattern scripts step by step without sockets (the libcurl player against
/// real servers is `PlayLiveTests`, in the integration tier).
@Suite
struct PlayTests {
    // MARK: - A perfect server, for the pure tests

    /// Answers `request` as a conforming server holding `length` bytes would (or, with
    /// `ignoreRange`, as one that sends the whole file with 200), stopping at the read limit.
    static func answer(_ request: PlannedRequest, length: Int64, ignoreRange: Bool = false) -> FetchOutcome {
        let limit = request.readLimit ?? .max
        if ignoreRange {
            return FetchOutcome(
                status: 200, contentLength: length, bytesRead: min(length, limit),
                end: length > limit ? .cancelled : .complete)
        }
        let range = request.range.specs[0].resolved(length: length)!
        return FetchOutcome(
            status: 206, contentRange: "bytes \(range.first)-\(range.last)/\(length)", contentLength: range.count,
            bytesRead: min(range.count, limit), end: range.count > limit ? .cancelled : .complete)
    }

    /// Plays a whole script against ``answer(_:length:ignoreRange:)``.
    static func simulate(
        _ pattern: PlayPattern, length: Int64, readBytes: Int64 = 256 * 1024, seed: UInt64 = 1,
        ignoreRange: Bool = false
    ) -> (requests: [PlannedRequest], script: PlayerScript) {
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

        let nextOpen = script.next(
            after: FetchOutcome(
                status: 206, contentRange: "bytes 0-1/10000000", contentLength: 2, bytesRead: 2, end: .complete))
        let open = try #require(nextOpen)
        #expect(script.contentLength == length)
        #expect(open.purpose == .open)
        #expect(open.rangeHeader == "bytes=0-")
        #expect(open.readLimit == n)

        // libcurl hands over up to 16 KiB at a time, so a few bytes past the limit arrive: the
        // resume position is still first + readBytes, which keeps the script deterministic.
        let nextResume = script.next(
            after: FetchOutcome(
                status: 206, contentRange: "bytes 0-9999999/10000000", bytesRead: n + 11_723, end: .cancelled))
        let resume = try #require(nextResume)
        #expect(resume.purpose == .resume)
        #expect(resume.rangeHeader == "bytes=\(n)-")

        let nextSeek = script.next(
            after: FetchOutcome(status: 206, contentRange: "bytes \(n)-9999999/10000000", bytesRead: n, end: .cancelled)
        )
        let seek = try #require(nextSeek)
        #expect(seek.purpose == .seek)
        #expect(seek.range.specs == [.from(first: seek.first)])
        #expect((5_700_000...6_300_000).contains(seek.first), "seek to ~60 %: \(seek.first)")

        let nextTail = script.next(
            after: FetchOutcome(
                status: 206, contentRange: "bytes \(seek.first)-9999999/10000000", bytesRead: n, end: .cancelled))
        let tail = try #require(nextTail)
        #expect(tail.purpose == .tail)
        #expect(tail.rangeHeader == "bytes=\(length - 65536)-")

        #expect(
            script.next(
                after: FetchOutcome(
                    status: 206, contentRange: "bytes \(length - 65536)-9999999/10000000", bytesRead: 65536,
                    end: .complete)) == nil)
        #expect(script.isFinished)
        #expect(script.problems.isEmpty)
        #expect(script.steps.map(\.number) == [1, 2, 3, 4, 5])
        #expect(script.steps.map(\.cancelled) == [false, true, true, true, false])
        #expect(
            script.steps.map(\.range) == [
                "bytes=0-1", "bytes=0-", "bytes=\(n)-", "bytes=\(seek.first)-", "bytes=\(length - 65536)-",
            ])
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
        #expect(
            script.next(after: FetchOutcome(status: 200, contentLength: 1000, bytesRead: 1000, end: .complete)) == nil)
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
        let next = script.next(
            after: FetchOutcome(status: 206, contentRange: "bytes 100-4999/5000", bytesRead: 1000, end: .cancelled))
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
        #expect(
            none.next(after: FetchOutcome(status: 206, bytesRead: 2, end: .complete)) == nil,
            "a probe without a usable Content-Range ends the script")
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
        #expect(
            star.next(after: FetchOutcome(status: 206, contentRange: "bytes 0-1/*", bytesRead: 2, end: .complete))
                == nil)
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
        let step = PlayStep(
            number: 2, purpose: .open, range: "bytes=0-", status: 206, contentRange: "bytes 0-99/100",
            contentLength: 100, bytes: 50, ms: 12.345, end: .cancelled, reusedConnection: true, problem: nil)
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
}
