import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// The writer gathers what arrives while it waits ``CaptureWriter/Options/batchDelay`` and writes
/// it with one `writev(2)` and one `write(2)`; a disk that fills in the middle of a batch still
/// leaves no line pointing at bytes that are not in `body.bin`.
@Suite("CaptureWriter batches")
struct CaptureWriterBatchTests {
    static func chunk(_ index: Int, size: Int) -> ChunkEvent {
        ChunkEvent(
            t: CaptureTime(index), exchange: 1, size: size, offset: Int64(index * size),
            resourceOffset: Int64(index * size), bodyOffset: nil)
    }

    @Test func eventsThatArriveTogetherAreWrittenTogether() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/b.rtap"
        // A long delay, so that the loop below (microseconds) lands in the writer's first batch
        // even on a loaded machine; close() ends the wait early.
        let writer = try CaptureWriter(
            path: path, header: CaptureHeader.forTests, clock: MonotonicClock(),
            options: .init(bodies: true, batchDelay: .seconds(5)))
        for i in 0..<1000 {
            writer.record(
                .connectionOpen(
                    ConnectionOpenEvent(t: CaptureTime(i), connection: i + 1, peer: "127.0.0.1:1", sendBuffer: nil)))
            writer.recordChunk(
                Self.chunk(i, size: 100), bytes: patternBytes(count: 100, seed: UInt8(truncatingIfNeeded: i)))
        }
        writer.close()
        #expect(writer.writeError == nil)
        #expect(writer.batchesWritten < 100, "2,000 items in \(writer.batchesWritten) batches")
        let reader = try CaptureReader(path: path)
        let events = try reader.events()
        #expect(events.count == 2000)
        let chunks = events.compactMap { e -> ChunkEvent? in if case .chunk(let c) = e { c } else { nil } }
        let offsets: [Int64?] = (0..<1000).map { Int64($0 * 100) }
        #expect(chunks.map(\.bodyOffset) == offsets)
        for i in [0, 1, 499, 999] {
            #expect(
                Array(try reader.bytes(of: chunks[i])) == patternBytes(count: 100, seed: UInt8(truncatingIfNeeded: i)))
        }
    }

    @Test func flushDoesNotWaitForTheBatchDelay() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/f.rtap"
        // An hour: were flush() to wait for the delay, the test would hit its time limit.
        let writer = try CaptureWriter(
            path: path, header: CaptureHeader.forTests, clock: MonotonicClock(),
            options: .init(bodies: true, batchDelay: .seconds(3600)))
        for round in 1...3 {
            writer.record(
                .connectionOpen(
                    ConnectionOpenEvent(t: CaptureTime(round), connection: round, peer: "127.0.0.1:1", sendBuffer: nil))
            )
            writer.flush()
            #expect(try CaptureReader(path: path).events().count == round)
        }
        // Body bytes past the bypass threshold end the wait too.
        writer.recordChunk(Self.chunk(0, size: 300 << 10), bytes: patternBytes(count: 300 << 10, seed: 7))
        for _ in 0..<3000 where writer.pendingBodyBytes > 0 { usleep(10_000) }
        #expect(writer.pendingBodyBytes == 0)
        writer.close()
        #expect(try CaptureReader(path: path).events().count == 4)
    }

    /// `--no-bodies --no-hash`: chunks' bytes are neither stored nor hashed, so they count for no
    /// backlog and wake no one. Before, every chunk of 256 KiB or more ended the writer's wait:
    /// a batch (and a wake-up) per chunk, for bytes the writer then dropped.
    @Test func chunksWhoseBytesAreNotUsedAreOnlyEvents() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/n.rtap"
        let header = CaptureHeader(
            tool: "rangetap test", startedAt: "2026-01-02T03:04:05.678Z", bodies: false, hashes: false, redacted: true,
            listen: "127.0.0.1:8080", upstream: nil)
        let writer = try CaptureWriter(
            path: path, header: header, clock: MonotonicClock(),
            options: .init(bodies: false, maxPendingBytes: 1024, batchDelay: .seconds(5)))
        let bytes = patternBytes(count: 300 << 10, seed: 3)
        for i in 0..<100 {
            writer.recordChunk(Self.chunk(i, size: bytes.count), bytes: bytes)
            #expect(writer.pendingBodyBytes == 0)
        }
        writer.record(.end(EndEvent(t: 200, exchange: 1, bytes: Int64(100 * bytes.count), sha256: "")))
        writer.close()
        #expect(writer.writeError == nil)
        #expect(writer.batchesWritten < 10, "101 items in \(writer.batchesWritten) batches")
        let events = try CaptureReader(path: path).events()
        let chunks = events.compactMap { e -> ChunkEvent? in if case .chunk(let c) = e { c } else { nil } }
        #expect(chunks.map(\.offset) == (0..<100).map { Int64($0 * bytes.count) })
        #expect(chunks.allSatisfy { $0.size == bytes.count && $0.bodyOffset == nil })
        guard case .end(let end)? = events.last else {
            Issue.record("no end event: \(events.last.map(\.type) ?? "none")")
            return
        }
        #expect(end.sha256.isEmpty, "nothing was hashed")
        #expect(!FileManager.default.fileExists(atPath: path + "/body.bin"))
    }

    /// A 1 MiB tmpfs fills in the middle of one batch of 64 KiB chunks.
    @Test func aDiskThatFillsInTheMiddleOfABatchKeepsOnlyWholeChunks() throws {
        let mountPoint = Paths.temporaryDirectory("writer-tmpfs")
        let mounted = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "mounting a tmpfs needs root: \(mounted.stderr)")
        defer { _ = try? runCommand("/bin/umount", ["-l", mountPoint]) }
        let path = mountPoint + "/full.rtap"
        let size = 64 << 10
        let writer = try CaptureWriter(
            path: path, header: CaptureHeader.forTests, clock: MonotonicClock(),
            options: .init(bodies: true, maxPendingBytes: 8 << 20, batchDelay: .seconds(5), batchBypassBytes: 8 << 20))
        for i in 0..<40 {
            writer.recordChunk(Self.chunk(i, size: size), bytes: patternBytes(count: size, seed: UInt8(i)))
        }
        writer.record(.end(EndEvent(t: 99, exchange: 1, bytes: Int64(40 * size), sha256: "")))
        writer.close()
        #expect(writer.batchesWritten == 1)
        let error = try #require(writer.writeError)
        #expect("\(error)".contains("body.bin"))
        #expect("\(error)".contains("No space left on device"))
        let reader = try CaptureReader(path: path)
        let events = try reader.events()
        let chunks = events.compactMap { e -> ChunkEvent? in if case .chunk(let c) = e { c } else { nil } }
        #expect(chunks.count > 0 && chunks.count < 40, "\(chunks.count) chunks kept")
        #expect(events.count == chunks.count, "nothing after the first chunk that did not fit")
        for (i, c) in chunks.enumerated() {
            #expect(c.bodyOffset == Int64(i * size))
            #expect(Array(try reader.bytes(of: c)) == patternBytes(count: size, seed: UInt8(i)))
        }
    }
}
