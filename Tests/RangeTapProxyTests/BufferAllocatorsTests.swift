import CMalloc
import Foundation
import NIOCore
@testable import RangeTapProxy
import Testing

/// rangetap's two `ByteBufferAllocator`s (`Sources/CMalloc`): ``MappedBufferAllocator``, whose
/// large buffers take pages only where they are written (seen with `mincore`), and
/// ``RoundBufferPool``, which keeps freed rounds for reuse up to its cap (a pool of the test's own,
/// so other tests' rounds do not count).
@Suite struct BufferAllocatorsTests {
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The mapping a block of `capacity` bytes at `base` lives in: its 16-byte header and the
    /// bytes, rounded up to whole pages.
    static func residentPages(base: UnsafeRawPointer, capacity: Int) -> Int {
        let start = UnsafeMutableRawPointer(mutating: base - 16)
        let length = (capacity + 16 + page - 1) / page * page
        var vector = [UInt8](repeating: 0, count: length / page)
        let status = mincore(start, length, &vector)
        #expect(status == 0, "mincore: errno \(errno)")
        return vector.filter { $0 & 1 == 1 }.count
    }

    static func storageBase(_ buffer: ByteBuffer) -> UnsafeRawPointer {
        buffer.withVeryUnsafeBytes { UnsafeRawPointer($0.baseAddress!) }
    }

    #if os(Linux)
    /// NIOSSL's plaintext read buffer, 32 KiB, of which a client's requests write the first few
    /// hundred bytes: one page of it is resident, the one they were written to.
    @Test func aLargeBufferTakesPagesOnlyWhereWritten() {
        var buffer = MappedBufferAllocator.allocator.buffer(capacity: 32 * 1024)
        #expect(buffer.capacity == 32 * 1024)
        buffer.writeBytes(Array(repeating: 0xA5, count: 300))
        let base = Self.storageBase(buffer)
        #expect(Int(bitPattern: base - 16) % Self.page == 0, "a mapping of its own starts on a page")
        #expect(Self.residentPages(base: base, capacity: buffer.capacity) == 1)
        buffer.writeBytes(Array(repeating: 0x5A, count: 32 * 1024 - 300))
        #expect(
            Self.residentPages(base: base, capacity: buffer.capacity) == (32 * 1024 + 16 + Self.page - 1) / Self.page)
    }
    #endif

    /// A buffer keeps its bytes as it grows: one from malloc past the threshold (it stays in
    /// malloc), a mapping into a larger mapping; so does a copy made on write.
    @Test(arguments: [1_000, 40_000])
    func bytesSurviveGrowth(initialCapacity: Int) {
        var buffer = MappedBufferAllocator.allocator.buffer(capacity: initialCapacity)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        buffer.writeBytes(bytes[0..<900])
        buffer.writeBytes(bytes[900..<100_000])
        #expect(buffer.capacity >= 100_000)
        buffer.writeBytes(bytes[100_000...])
        #expect(Array(buffer.readableBytesView) == bytes)
        let before = buffer
        buffer.setInteger(UInt8(0), at: 0)
        #expect(Array(before.readableBytesView) == bytes, "the copy on write left the original as it was")
        #expect(
            buffer.getInteger(at: 0, as: UInt8.self) == 0
                && Array(buffer.readableBytesView.dropFirst()) == Array(bytes.dropFirst()))
    }

    /// A freed round waits for the next of its size: the same block comes back, and the pool
    /// holds its mapping meanwhile.
    @Test func aFreedRoundIsTheNextOfItsSize() throws {
        var pool = cmalloc_pool()
        cmalloc_pool_init(&pool, 8 << 20)
        defer { cmalloc_pool_drain(&pool) }
        let size = 256 * 1024
        let length = (size + 16 + Self.page - 1) / Self.page * Self.page
        let first = try #require(cmalloc_pool_take(&pool, size))
        first.storeBytes(of: 0xC0FFEE, as: Int.self)
        cmalloc_pool_give(&pool, first)
        #expect(cmalloc_pool_held_in(&pool) == length)
        let second = try #require(cmalloc_pool_take(&pool, size))
        #expect(second == first)
        #expect(cmalloc_pool_held_in(&pool) == 0)
        let larger = try #require(cmalloc_pool_take(&pool, size * 2))
        #expect(larger != first, "no free block holds twice the size: a new one")
        cmalloc_pool_give(&pool, second)
        cmalloc_pool_give(&pool, larger)
        let largerLength = (2 * size + 16 + Self.page - 1) / Self.page * Self.page
        #expect(cmalloc_pool_held_in(&pool) == length + largerLength)
        // A smaller round takes the smallest free block that holds it.
        let half = try #require(cmalloc_pool_take(&pool, size / 2))
        #expect(half == first && cmalloc_pool_held_in(&pool) == largerLength)
        let quarter = try #require(cmalloc_pool_take(&pool, size / 4))
        #expect(quarter == larger && cmalloc_pool_held_in(&pool) == 0)
        // Each goes back to the list of the size it was made for.
        cmalloc_pool_give(&pool, quarter)
        #expect(cmalloc_pool_take(&pool, size * 2) == larger)
        cmalloc_pool_give(&pool, half)
        cmalloc_pool_give(&pool, larger)
    }

    /// Beyond its cap a freed round goes back to the kernel; rounds under the minimum, and sizes
    /// that are not a power of two, are never kept.
    @Test func thePoolKeepsNoMoreThanItsCap() throws {
        let size = 128 * 1024
        let length = (size + 16 + Self.page - 1) / Self.page * Self.page
        var pool = cmalloc_pool()
        cmalloc_pool_init(&pool, 2 * length)
        defer { cmalloc_pool_drain(&pool) }
        let blocks = try (0..<5).map { _ in try #require(cmalloc_pool_take(&pool, size)) }
        #expect(Set(blocks).count == 5)
        for b in blocks { cmalloc_pool_give(&pool, b) }
        #expect(cmalloc_pool_held_in(&pool) == 2 * length)
        for size in [Int(cmalloc_pool_minimum()) / 2, 100_000, 1] {
            let b = try #require(cmalloc_pool_take(&pool, size))
            cmalloc_pool_give(&pool, b)
            #expect(cmalloc_pool_held_in(&pool) == 2 * length, "\(size) bytes")
        }
        cmalloc_pool_drain(&pool)
        #expect(cmalloc_pool_held_in(&pool) == 0)
    }

    /// A round that grows (or comes from the shared pool through a `ByteBuffer`) keeps its bytes.
    @Test func aRoundKeepsItsBytesThroughTheAllocator() throws {
        var pool = cmalloc_pool()
        cmalloc_pool_init(&pool, 8 << 20)
        defer { cmalloc_pool_drain(&pool) }
        let small = try #require(cmalloc_pool_take(&pool, 40_000))
        for i in 0..<40_000 { small.storeBytes(of: UInt8(truncatingIfNeeded: i * 31), toByteOffset: i, as: UInt8.self) }
        let grown = try #require(cmalloc_pool_resize(&pool, small, 40_000, 128 * 1024))
        #expect(
            (0..<40_000).allSatisfy {
                grown.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0 * 31)
            })
        cmalloc_pool_give(&pool, grown)

        let bytes = (0..<(300 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 40_503 >> 7) }
        for _ in 0..<3 {
            var round = RoundBufferPool.allocator.buffer(capacity: 256 * 1024)
            round.writeBytes(bytes)
            #expect(Array(round.readableBytesView) == bytes)
        }
    }
}
