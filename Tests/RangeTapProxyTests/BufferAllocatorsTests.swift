import CMalloc
import Foundation
import NIOCore
@testable import RangeTapProxy
import Testing

/// rangetap's own `ByteBufferAllocator` (`Sources/CMalloc`): ``RoundBufferPool``, which keeps
/// freed rounds for reuse up to its cap (a pool of the test's own, so other tests' rounds do not
/// count).
@Suite struct BufferAllocatorsTests {
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

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
