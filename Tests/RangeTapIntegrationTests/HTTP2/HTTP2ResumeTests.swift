import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The HTTP/2 test whose figure is a count of flow events (pauses after a resume), which the
/// load of suites running beside it moves: `tools/test.sh` runs this suite alone. The peers and
/// helpers are ``HTTP2RecordingTests``'s.
@Suite(.serialized)
struct HTTP2ResumeTests {
    let recording: HTTP2RecordingTests

    init() throws { recording = try HTTP2RecordingTests() }

    /// With `--upstream-multiplex`, libcurl keeps what arrives for a paused stream (up to the
    /// window it granted); when the client reads that stream again, rangetap takes all of it at
    /// the resume instead of pausing again after its own window, which made libcurl copy the
    /// rest into a new buffer at every pause. The stream then ends byte-exact at the client.
    @Test func aResumedStreamTakesWhatLibcurlHeldAtOnce() async throws {
        let big = try recording.writeBigFile(mebibytes: 48)
        let proxy = try await recording.proxy { $0.upstreamMultiplex = true }
        let mib = 1 << 20
        let ranges = ["0-\(24 * mib - 1)", "\(8 * mib)-\(48 * mib - 1)", "\(8 * mib)-\(48 * mib - 1)"]
        let r = try recording.h2RangeClient(
            proxy, path: "/big.bin", ranges: ranges, ["--stall-index", "0", "--resume-stalled", "--timeout", "60"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]
        let streams = try #require(report?["streams"] as? [[String: Any]])
        let first = try #require(streams.first { ($0["id"] as? Int) == 1 })
        #expect(
            first["bytes"] as? Int == 24 * mib && first["sha256"] as? String == recording.sha256(big.prefix(24 * mib)),
            "\(first)"
        )
        let capture = try await proxy.stopAndRead()
        let stalledID = try #require(recording.requestEvents(capture).first { $0.stream == 1 }?.exchange)
        let stalled = try #require(capture.requests.first { $0.id == stalledID })
        #expect(stalled.outcome == .complete && stalled.bytesReceived == Int64(24 * mib))
        // Flow events of the stalled exchange, in order: one pause while the client did not
        // read, then at most a few once it took the bulk that libcurl held (before: a pause
        // every 1 MiB or so, about thirty).
        let ordered: [String] = capture.events.compactMap {
            switch $0 {
            case .pause(let e) where e.exchange == stalledID: "pause"
            case .resume(let e) where e.exchange == stalledID: "resume"
            default: nil
            }
        }
        let firstResume = try #require(ordered.firstIndex(of: "resume"))
        let pausesAfter = ordered[firstResume...].filter { $0 == "pause" }.count
        #expect(pausesAfter <= 4, "\(pausesAfter) pauses after the client read again: \(ordered)")
    }
}
