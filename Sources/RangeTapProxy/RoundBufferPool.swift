import CMalloc
@_spi(CustomByteBufferAllocator) import NIOCore

/// The `ByteBufferAllocator` of the rounds an upstream transfer fills (``Exchange``): a round of
/// ``minimum`` bytes or more gets an anonymous mapping of its own and, once the client's event
/// loop and the capture writer are done with it, waits in a pool for the next round of its size;
/// beyond a cap of pooled rounds (``defaultCap``, `record --buffer-pool`) it goes back to the kernel
/// (`Sources/CMalloc/round_pool.c`).
///
/// Why: from malloc, rounds (made on the upstream thread, freed on the others) fragment the
/// upstream thread's heap, which keeps every page that ever held one: after a thousand 1 MiB
/// transfers, 20 at a time, that heap held 19 MiB, 16.7 MiB of it free, and each idle connection
/// appeared to cost 8 KiB more than after small responses (docs/performance.md). The pool keeps
/// reusing the same pages, as malloc did (no page faults for a steady transfer, the reason for
/// ``MallocTuning``), and what a burst needed beyond the cap is returned.
///
/// Uses swift-nio's `CustomByteBufferAllocator` SPI (swift-nio 2.101).
public enum RoundBufferPool {
    /// The smallest round that gets a mapping (smaller ones come from malloc): 64 KiB.
    static let minimum = Int(cmalloc_pool_minimum())
    /// The most the pool keeps unless told otherwise (`record --buffer-pool`), in bytes of
    /// mappings: 2 MiB (a bulk transfer with bodies holds up to 3 MiB of rounds in flight, which
    /// come and go together; more pooled added peak memory, less added page faults).
    public static let defaultCap = Int(cmalloc_pool_default_cap())

    /// Sets the most the pool keeps; 0 returns every round to the kernel once it is written.
    /// Process-wide: `record` sets it at start.
    public static func setCap(_ bytes: Int) {
        cmalloc_pool_set_cap(max(0, bytes))
    }

    /// The allocator.
    static let allocator = ByteBufferAllocator(
        allocate: cmalloc_pool_alloc,
        reallocate: cmalloc_pool_realloc,
        deallocate: cmalloc_pool_free,
        copy: cmalloc_copy
    )
}
