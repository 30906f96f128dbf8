import NIOCore
import RangeTapCore

/// Where the proxy's events go: the capture's ``CaptureWriter``, or a log in memory in the
/// handler tests. Any thread; an event is queued at once, a chunk waits only when the writer's
/// backlog of body bytes is past its limit (``CaptureWriter``).
protocol CaptureSink: AnyObject, Sendable {
    /// Records one event.
    func record(_ event: CaptureEvent)
    /// Records a chunk event and its bytes (the buffer that also goes to the client).
    func record(_ chunk: ChunkEvent, bytes: ByteBuffer)
}

extension CaptureWriter: CaptureSink {
    func record(_ chunk: ChunkEvent, bytes: ByteBuffer) {
        recordChunk(chunk, bytes: bytes)
    }
}
