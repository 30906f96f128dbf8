import Foundation
import RangeTapCore
@testable import RangeTapReplay
import RangeTapTestSupport
import Testing

/// Replay and serve on captures with hostile numbers: a resource beyond what can be replayed
/// or served is refused with a message naming it, and edited captures are read errors, never
/// traps (issue 10, item 1).
@Suite struct HostileNumbersReplayTests {
    func cacheDirectory() -> String { Paths.temporaryRoot + "/rangetap-hostile-cache-" + UUID().uuidString }

    @Test func replayRefusesTooLargeResourcesAndVerifiesTheRest() throws {
        let capture = try HostileCapture([.ok, .far, .huge])
        defer { capture.remove() }
        let dir = cacheDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try Replayer(path: capture.path).run(try SparseCache(directory: dir, capacity: 1 << 30))
        #expect(!report.verified)
        #expect(report.mismatches.isEmpty)
        #expect(
            report.errors.contains { $0.contains("/far is too large to replay") && $0.contains("9223372036854775806") },
            "\(report.errors)")
        #expect(
            report.errors.contains {
                $0.contains("/huge is too large to replay") && $0.contains("9223372036854775807")
            }, "\(report.errors)")
        // /ok was replayed: its 4 bytes came back from the cache, checked against the capture.
        #expect(report.requests == 1)
        #expect(report.bytesFromCache == 4)
    }

    /// The literal bytes of a planned response's body, as text.
    func text(_ response: RangeAnswer) -> String {
        var bytes: [UInt8] = []
        for part in response.body {
            if case .literal(let b) = part { bytes += b }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func idealServeAnswersTooLargeResourcesWithAMessage() throws {
        let capture = try HostileCapture([.ok, .far, .huge])
        defer { capture.remove() }
        let planner = IdealPlanner(index: try ResourceIndex(reader: try CaptureReader(path: capture.path)))
        for path in ["/far", "/huge"] {
            for range in [nil, "bytes=0-1", "bytes=9223372036854775806-", "bytes=-9223372036854775807"] {
                let response = planner.plan(FixtureRequest(method: "GET", target: path, range: range))
                #expect(response.status == 500)
                #expect(text(response).contains("\(path) is too large to serve"), "\(text(response))")
            }
        }
        let ok = planner.plan(FixtureRequest(method: "GET", target: "/ok", range: "bytes=2-9223372036854775807"))
        #expect(ok.status == 206)
        #expect(ok.field("Content-Range") == "bytes 2-3/4")
        let unknown = planner.plan(
            FixtureRequest(method: "GET", target: "/ok", range: "bytes=9223372036854775806-9223372036854775807,0-0"))
        #expect(unknown.status == 206)
    }

    @Test func faithfulServeAndReplayReportEditedNumbersAsReadErrors() throws {
        // Line 5 is the chunk of /ok (at 0, 4 bytes), line 9 the chunk of /far (at 4).
        let edits = [
            (#""at":4}"#, #""at":-4}"#, 9), (#""size":4,"#, #""size":4000000000000000000,"#, 5),
            (#""size":4,"off":0"#, #""size":4,"off":-1"#, 5),
        ]
        for edit in edits {
            let capture = try HostileCapture([.ok, .far])
            defer { capture.remove() }
            let events = capture.path + "/events.jsonl"
            let text = try String(contentsOfFile: events, encoding: .utf8)
            #expect(text.contains(edit.0))
            try Data(text.replacingOccurrences(of: edit.0, with: edit.1).utf8).write(to: URL(fileURLWithPath: events))
            let served = #expect(throws: (any Error).self) {
                try FixtureServer(capturePath: capture.path, mode: .faithful)
            }
            #expect("\(served.map { "\($0)" } ?? "")".contains("line \(edit.2)"), "\(String(describing: served))")
            let replayed = #expect(throws: CaptureError.self) { try Replayer(path: capture.path) }
            #expect(replayed?.description.contains("line \(edit.2)") == true, "\(String(describing: replayed))")
        }
    }

    @Test func cacheStorageRefusesOffsetsThatAreNotFileOffsets() throws {
        let dir = cacheDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = try SparseCache(directory: dir, capacity: 1 << 20)
        #expect(throws: ReplayError.self) { try cache.store(Data([1, 2]), at: -1, resource: "r", exchange: 1) }
        #expect(throws: ReplayError.self) {
            try cache.store(Data([1, 2]), at: Int64.max - 1, resource: "r", exchange: 1)
        }
        #expect(throws: ReplayError.self) { try CacheStorage.read(2, at: -5, path: dir + "/x") }
    }
}
