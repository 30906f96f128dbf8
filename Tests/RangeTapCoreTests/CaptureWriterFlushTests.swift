import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `CaptureWriter.flush()`: what was queued before it is on disk when it returns, recording goes
/// on afterwards, and it returns at once on a closed writer.
@Suite("CaptureWriter.flush")
struct CaptureWriterFlushTests {
    static let header = CaptureHeader.forTests

    @Test(.timeLimit(.minutes(1)))
    func queuedEventsAreOnDiskWhenFlushReturns() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/f.rtap"
        let writer = try CaptureWriter(path: path, header: Self.header, clock: MonotonicClock())
        for round in 1...50 {
            writer.record(
                .connectionOpen(
                    ConnectionOpenEvent(t: CaptureTime(round), connection: round, peer: "127.0.0.1:1", sendBuffer: nil))
            )
            writer.flush()
            // Read while the writer is open: every event queued so far is there.
            #expect(try CaptureReader(path: path).events().count == round)
        }
        writer.close()
        writer.flush()  // closed: returns at once
        #expect(try CaptureReader(path: path).events().count == 50)
    }
}
