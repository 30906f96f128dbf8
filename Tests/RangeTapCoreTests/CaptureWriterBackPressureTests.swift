import Foundation
import RangeTapCore
import Synchronization
import RangeTapTestSupport
import Testing

/// A disk slower than the network holds back the producer of body bytes (libcurl's thread),
/// never a producer of events (an event loop), and loses nothing.
@Suite("CaptureWriter back-pressure")
struct CaptureWriterBackPressureTests {
    @Test(.timeLimit(.minutes(1)))
    func eventsNeverWaitForTheDiskChunksDoAndNothingIsLost() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/b.rtap"
        // The observer runs on the writer thread: holding it there is a disk that stopped.
        let gate = DispatchSemaphore(value: 0)
        let stalled = DispatchSemaphore(value: 0)
        let seen = Atomic<Int>(0)
        let writer = try CaptureWriter(
            path: path, header: CaptureHeader.forTests, clock: MonotonicClock(),
            options: .init(bodies: true, maxPendingBytes: 1024),
            observer: { _ in
                if seen.add(1, ordering: .relaxed).newValue == 1 {
                    stalled.signal()
                    gate.wait()
                }
            })
        writer.record(.connectionOpen(ConnectionOpenEvent(t: 1, connection: 1, peer: "127.0.0.1:1", sendBuffer: nil)))
        stalled.wait()

        // The upstream thread queues 4 KiB (over the 1 KiB bound) and is held back.
        let chunkQueued = DispatchSemaphore(value: 0)
        let producerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            chunkQueued.signal()
            writer.recordChunk(
                ChunkEvent(t: 2, exchange: 1, size: 4096, offset: 0, resourceOffset: 0, bodyOffset: nil),
                bytes: [UInt8](repeating: 0xAB, count: 4096))
            producerDone.signal()
        }
        chunkQueued.wait()
        for _ in 0..<1000 where writer.pendingBodyBytes < 4096 { usleep(10_000) }
        #expect(writer.pendingBodyBytes == 4096)

        // An event loop's events go straight in while the disk is stuck (before, this waited).
        for i in 2...200 {
            writer.record(
                .connectionOpen(
                    ConnectionOpenEvent(t: CaptureTime(i + 2), connection: i, peer: "127.0.0.1:1", sendBuffer: nil)))
        }
        #expect(producerDone.wait(timeout: .now() + 0.3) == .timedOut, "the chunk producer waits for the disk")

        gate.signal()
        producerDone.wait()
        writer.close()
        let events = try CaptureReader(path: path).events()
        #expect(events.count == 201)
        // The chunk stays where it was produced: after connection 1, before connection 2.
        #expect(events[1].type == "chunk", "\(events.prefix(3).map(\.type))")
        guard case .chunk(let chunk) = events[1] else { return }
        #expect(try CaptureReader(path: path).bytes(of: chunk) == Data(repeating: 0xAB, count: 4096))
    }
}
