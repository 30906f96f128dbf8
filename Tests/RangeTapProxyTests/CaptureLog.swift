import NIOCore
import RangeTapCore
@testable import RangeTapProxy
import Synchronization

/// A capture sink that keeps every event in memory, for handler tests that read what was
/// recorded without a capture file.
final class CaptureLog: CaptureSink {
    private let events = Mutex<[CaptureEvent]>([])

    func record(_ event: CaptureEvent) {
        events.withLock { $0.append(event) }
    }

    func record(_ chunk: ChunkEvent, bytes: ByteBuffer) {
        events.withLock { $0.append(.chunk(chunk)) }
    }

    /// Every event so far, in order.
    var all: [CaptureEvent] { events.withLock { $0 } }

    /// The end, cancel and error events (how exchanges settled), in order.
    var settled: [CaptureEvent] {
        all.filter {
            switch $0 {
            case .end, .cancel, .error: true
            default: false
            }
        }
    }
}
