import RangeTapCore
import RangeTapPlay
import Testing

/// The value types of `rangetap play` without sockets: planned requests, how a script judges
/// answers that are wrong in less common ways, verdicts, and the errors a user reads.
@Suite
struct PlayValueTests {
    // MARK: - Patterns and planned requests

    @Test func everyPatternSaysWhatItSends() {
        #expect(PlayPattern.allCases.map(\.rawValue) == ["avplayer", "linear", "seeky"])
        #expect(PlayPattern(rawValue: "vlc") == nil)
        #expect(PlayPattern.linear.summary == "bytes=0- read to the end")
        #expect(PlayPattern.avplayer.summary.hasPrefix("probe bytes=0-1, open-ended bytes=0- cancelled"))
        #expect(PlayPattern.seeky.summary.contains("5 seeded seeks"))
        #expect(PlayerScript.seekyCount == 5)
    }

    @Test func aPlannedRequestIsOneRange() {
        let probe = PlannedRequest(purpose: .probe, first: 0, last: 1, readLimit: 2)
        #expect(probe.rangeHeader == "bytes=0-1")
        #expect(probe.first == 0)
        let seek = PlannedRequest(purpose: .seek, first: 123_456, readLimit: nil)
        #expect(seek.rangeHeader == "bytes=123456-")
        #expect(seek.first == 123_456)
        #expect(seek.range == RangeRequest(specs: [.from(first: 123_456)]))
        #expect(PlannedRequest.Purpose.tail.rawValue == "tail")
    }

    // MARK: - Judging answers

    @Test func a416ForARangeInsideTheResourceIsABadStatusButSeekyGoesOn() throws {
        var script = PlayerScript(pattern: .seeky, readBytes: 100, seed: 4)
        _ = script.next(after: nil)
        let planned = script.next(
            after: FetchOutcome(status: 206, contentRange: "bytes 0-1/5000", bytesRead: 2, end: .complete))
        let seek = try #require(planned)
        #expect(seek.purpose == .seek)
        let next = script.next(
            after: FetchOutcome(status: 416, contentRange: "bytes */5000", bytesRead: 0, end: .complete))
        #expect(next?.purpose == .seek, "a seek answered badly does not end the session")
        #expect(script.problems.map(\.kind) == [.badStatus])
        #expect(
            script.problems[0].message
                == "answered 416 to Range: \(seek.rangeHeader) although the range starts inside the resource")
        #expect(script.problems[0].step == 2)
        #expect(script.steps[1].problem == script.problems[0].message)
    }

    @Test func noResponseEndsTheScript() {
        var script = PlayerScript(pattern: .avplayer)
        _ = script.next(after: nil)
        #expect(
            script.next(
                after: FetchOutcome(
                    status: nil, bytesRead: 0, end: .failed, failure: "Recv failure: Connection reset by peer",
                    curlCode: 56)) == nil)
        #expect(script.isFinished)
        #expect(script.problems.map(\.kind) == [.transferFailed])
        #expect(script.problems[0].message == "no response to Range: bytes=0-1: Recv failure: Connection reset by peer")
        #expect(script.steps.map(\.status) == [nil])
        #expect(script.steps[0].line.contains(" --- "), "\(script.steps[0].line)")
        #expect(script.steps[0].line.hasSuffix("  ! " + script.problems[0].message))
    }

    @Test func aBodyThatFailsAfterTheHeadEndsTheScript() {
        var script = PlayerScript(pattern: .avplayer, readBytes: 1000)
        _ = script.next(after: nil)
        _ = script.next(after: FetchOutcome(status: 206, contentRange: "bytes 0-1/50000", bytesRead: 2, end: .complete))
        let after = script.next(
            after: FetchOutcome(
                status: 206, contentRange: "bytes 0-49999/50000", bytesRead: 700, end: .failed,
                failure: "transfer closed with 49300 bytes remaining to read"))
        #expect(after == nil)
        #expect(script.problems.map(\.kind) == [.transferFailed])
        #expect(
            script.problems[0].message
                == "the transfer of Range: bytes=0- failed after 700 body bytes: transfer closed with 49300 bytes remaining to read"
        )
        #expect(script.steps.map(\.end) == [.complete, .failed])
    }

    @Test func aProbeWithAnUnusableContentRangeEndsTheScript() {
        for (contentRange, words) in [
            ("bytes */5000", "is the unsatisfied form"), ("bytes 0-9/5", "ends past the total length"),
        ] {
            var script = PlayerScript(pattern: .avplayer)
            _ = script.next(after: nil)
            #expect(
                script.next(after: FetchOutcome(status: 206, contentRange: contentRange, bytesRead: 2, end: .complete))
                    == nil, "\(contentRange)")
            #expect(script.problems.map(\.kind) == [.wrongContentRange])
            #expect(script.problems.first?.message.contains(words) == true, "\(script.problems)")
            #expect(script.contentLength == nil)
        }
    }

    @Test func linearLearnsTheLengthFromAWholeBodyWithoutContentLength() {
        var script = PlayerScript(pattern: .linear)
        _ = script.next(after: nil)
        #expect(script.next(after: FetchOutcome(status: 200, bytesRead: 1234, end: .complete)) == nil)
        #expect(script.contentLength == 1234)
        #expect(script.problems.isEmpty)

        // A 200 ignoring Range with no Content-Length, cut by the read limit: no length to plan with.
        var ranged = PlayerScript(pattern: .avplayer, readBytes: 100)
        _ = ranged.next(after: nil)
        #expect(ranged.next(after: FetchOutcome(status: 200, bytesRead: 100, end: .cancelled)) == nil)
        #expect(ranged.problems.map(\.kind) == [.ignoredRange, .unknownLength])
    }

    // MARK: - Results and errors

    @Test func aConformingSessionsVerdictCountsRequestsCancelsAndBytes() {
        let (_, script) = PlayTests.simulate(.avplayer, length: 10_000_000, readBytes: 256 * 1024, seed: 3)
        let result = PlayResult(script)
        #expect(result.conforms)
        #expect(!result.serverIgnoredRange)
        #expect(result.contentLength == 10_000_000)
        #expect(result.totalBytes == script.steps.reduce(0) { $0 + $1.bytes })
        #expect(result.verdict == "5 requests, all answered 206, 3 cancelled, \(result.totalBytes) body bytes read")

        var linear = PlayerScript(pattern: .linear)
        _ = linear.next(after: nil)
        _ = linear.next(after: FetchOutcome(status: 200, contentLength: 10, bytesRead: 10, end: .complete))
        #expect(PlayResult(linear).verdict == "1 request, all answered 200, 0 cancelled, 10 body bytes read")
    }

    @Test func aMisbehavingServersVerdictNamesTheFirstProblem() {
        let problems = [
            PlayProblem(step: 2, kind: .badStatus, message: "answered 500 to Range: bytes=5-"),
            PlayProblem(step: 3, kind: .wrongBodyLength, message: "short"),
        ]
        let result = PlayResult(pattern: .seeky, steps: [], problems: problems, contentLength: nil)
        #expect(!result.conforms)
        #expect(result.verdict == "the server misbehaved: step 2: answered 500 to Range: bytes=5-")
        #expect(problems[1].description == "step 3: short")
    }

    @Test func errorsNameTheRemedy() {
        #expect(
            PlayError.badURL("movie.mp4").description.contains("movie.mp4 is not an absolute http:// or https:// URL"))
        #expect(PlayError.badReadBytes(0).description.contains("--chunk-bytes"))
        let direct = PlayError.unreachable(
            url: "http://127.0.0.1:9/a", proxy: nil, curlCode: 7, message: "Failed to connect")
        #expect(direct.curlCode == 7)
        #expect(
            direct.description
                == "cannot fetch http://127.0.0.1:9/a: Failed to connect (libcurl error 7); check that the server runs and the URL is right"
        )
        let proxied = PlayError.unreachable(
            url: "http://a/b", proxy: "http://127.0.0.1:8080", curlCode: 7, message: "Failed to connect")
        #expect(proxied.description.contains("through the proxy http://127.0.0.1:8080"))
        #expect(proxied.description.hasSuffix("check that the proxy (rangetap record) runs and the URL is right"))
        #expect(PlayError.noResponse(url: "http://a/b", seconds: 30).curlCode == nil)
        #expect(
            PlayError.noResponse(url: "http://a/b", seconds: 30).description.contains("no response head within 30 s"))
    }

    @Test func badArgumentsFailBeforeAnythingIsSent() async {
        await #expect(throws: PlayError.badURL("ftp://127.0.0.1/a.mp4")) {
            try await ScriptedPlayer.run(url: "ftp://127.0.0.1/a.mp4", pattern: .linear)
        }
        await #expect(throws: PlayError.badReadBytes(0)) {
            try await ScriptedPlayer.run(url: "http://127.0.0.1:9/a.mp4", pattern: .avplayer, readBytes: 0)
        }
    }
}
