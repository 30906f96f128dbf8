import RangeTapPlay
import RangeTapTestSupport
import Testing

/// `ScriptedPlayer` on libcurl against the quirk origin (`Tests/Origins/quirk_origin.py`): one
/// conforming path and the defects a player trips over, each judged by the script.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PlayQuirkOriginTests {
    static let size = 2 << 20
    /// Above the 64 KiB tail, so the tail request ends with its body, not at the read limit.
    static let readBytes: Int64 = 100_000

    @Test func aConformingOriginPassesEveryPattern() async throws {
        let origin = try QuirkOrigin(size: Self.size)
        for pattern in PlayPattern.allCases {
            var seen: [Int] = []
            let result = try await ScriptedPlayer.run(
                url: origin.url("/normal"), pattern: pattern, readBytes: Self.readBytes, seed: 11
            ) { seen.append($0.number) }
            #expect(result.conforms, "\(pattern): \(result.problems)")
            #expect(result.contentLength == Int64(Self.size), "\(pattern)")
            #expect(seen == Array(1...result.steps.count), "onStep sees every step once, in order")
            switch pattern {
            case .avplayer:
                #expect(result.steps.map(\.purpose) == [.probe, .open, .resume, .seek, .tail])
                #expect(result.steps.map(\.status) == [206, 206, 206, 206, 206])
                #expect(result.steps.map(\.cancelled) == [false, true, true, true, false])
                #expect(result.steps[4].bytes == PlayerScript.tailBytes)
            case .linear:
                #expect(result.steps.map(\.status) == [206], "bytes=0- to a conforming origin")
                #expect(result.steps.first?.bytes == Int64(Self.size))
            case .seeky:
                #expect(result.steps.count == 1 + PlayerScript.seekyCount)
                #expect(result.steps.allSatisfy { $0.status == 206 })
            }
            // A cancelled read stops near the limit: libcurl hands over at most 16 KiB a call.
            #expect(
                result.steps.filter(\.cancelled).allSatisfy {
                    $0.bytes >= Self.readBytes && $0.bytes <= Self.readBytes + 16384
                })
        }
    }

    @Test func aContentRangeOneByteOffIsReported() async throws {
        let origin = try QuirkOrigin(size: Self.size)
        let result = try await ScriptedPlayer.run(
            url: origin.url("/wrong-range"), pattern: .avplayer, readBytes: Self.readBytes)
        #expect(!result.conforms)
        #expect(result.problems.contains { $0.kind == .wrongContentRange && $0.step == 1 })
        #expect(
            result.problems.first { $0.kind == .wrongContentRange }?.message.contains("starting at byte 1 instead of 0")
                == true, "\(result.problems)")
        #expect(result.verdict.hasPrefix("the server misbehaved: step 1: "))
    }

    @Test func anOriginIgnoringRangeIsReadBoundedly() async throws {
        let origin = try QuirkOrigin(size: Self.size)
        let result = try await ScriptedPlayer.run(
            url: origin.url("/ignore-range"), pattern: .seeky, readBytes: Self.readBytes)
        #expect(result.serverIgnoredRange)
        #expect(result.steps.allSatisfy { $0.status == 200 && $0.cancelled })
        #expect(result.totalBytes < Int64(Self.size))
    }

    @Test func aMissingResourceEndsAtTheProbe() async throws {
        let origin = try QuirkOrigin(size: 1000)
        let result = try await ScriptedPlayer.run(url: origin.url("/status/404"), pattern: .avplayer)
        #expect(result.steps.map(\.status) == [404])
        #expect(result.problems.map(\.kind) == [.badStatus])
        #expect(result.problems.first?.message == "answered 404 to Range: bytes=0-1")
    }
}
