import Foundation
import RangeTapCore
import Testing

/// `CaptureWriter.flush()`: what was queued before it is on disk when it returns, recording goes
/// on afterwards, and it returns at once on a closed writer.
@Suite("CaptureWriter.flush")
struct CaptureWriterFlushTests {
    static let header = CaptureHeader(version: CaptureHeader.currentVersion, tool: "rangetap test", startedAt: "2026-01-02T03:04:05.678Z", bodies: true, redacted: true, listen: "127.0.0.1:8080", upstream: nil)

    @Test(.timeLimit(.minutes(1)))
    func queuedEventsAreOnDiskWhenFlushReturns() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/f.rtap"
        let writer = try CaptureWriter(path: path, header: Self.header, clock: MonotonicClock())
        for round in 1...50 {
            writer.record(.connectionOpen(ConnectionOpenEvent(t: CaptureTime(round), connection: round, peer: "127.0.0.1:1", sendBuffer: nil)))
            writer.flush()
            // Read while the writer is open: every event queued so far is there.
            #expect(try CaptureReader(path: path).events().count == round)
        }
        writer.close()
        writer.flush()  // closed: returns at once
        #expect(try CaptureReader(path: path).events().count == 50)
    }
}
