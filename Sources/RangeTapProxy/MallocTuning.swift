import CMalloc

/// Process-wide malloc settings that keep the proxy's round buffers out of the kernel's hands.
///
/// Every round of an upstream transfer fills a fresh `ByteBuffer` of up to `CURLOPT_BUFFERSIZE`
/// (256 KiB by default), which the client's event loop and the capture writer release once it is
/// written. With glibc's defaults such a buffer either gets a mapping of its own (when
/// the heap's top has no room for it) or, freed, grows the top of the heap past the trim
/// threshold (twice the dynamic mmap threshold, about 1 MiB), which hands it back to the kernel.
/// Either way the next round faults in and zeroes its pages again (128 for 512 KiB): on a 1 GiB
/// transfer with 512 KiB rounds, about 10 % of the proxy's CPU (`clear_page_erms`,
/// `exc_page_fault` in `perf`; docs/performance.md).
///
/// ``apply(environment:)`` fixes the mmap threshold above the largest round buffer and lets each
/// heap keep up to ``trimThreshold`` of freed memory at its top, so buffers are recycled in place;
/// that much per malloc arena is what it may hold on to. glibc only: elsewhere it does nothing.
/// Rounds of 64 KiB and more now come from ``RoundBufferPool`` instead, which recycles them the
/// same way without fragmenting the upstream thread's heap; the thresholds still serve smaller
/// rounds and every other buffer.
public enum MallocTuning {
    /// Allocations at least this large still get their own mapping: 1 MiB, above the round
    /// buffers (256 KiB by default, and NIO's power-of-two rounding of a larger read size).
    public static let mmapThreshold = 1 << 20
    /// Freed memory at the top of a heap beyond this goes back to the kernel: 4 MiB.
    public static let trimThreshold = 4 << 20

    /// What ``apply(environment:)`` did.
    public enum Outcome: Equatable, Sendable {
        /// The thresholds are set.
        case applied
        /// The environment already sets a threshold (``tunesMalloc(_:)``): left as the user asked.
        case leftToEnvironment
        /// The C library has no `mallopt` (not glibc), or refused the values.
        case unsupported
    }

    /// Sets the thresholds unless the environment already tunes malloc. Call once, early, before
    /// the proxy allocates its first buffers.
    @discardableResult
    public static func apply(environment: [String: String]) -> Outcome {
        if tunesMalloc(environment) { return .leftToEnvironment }
        return setThresholds(mmap: mmapThreshold, trim: trimThreshold) ? .applied : .unsupported
    }

    /// `mallopt(M_MMAP_THRESHOLD)` and `mallopt(M_TRIM_THRESHOLD)`; false off glibc or when refused.
    static func setThresholds(mmap: Int, trim: Int) -> Bool {
        cmalloc_set_thresholds(Int32(clamping: mmap), Int32(clamping: trim)) == 1
    }

    /// True when the environment sets either threshold itself: the `glibc.malloc.trim_threshold`
    /// or `glibc.malloc.mmap_threshold` tunable, or the older `MALLOC_TRIM_THRESHOLD_` /
    /// `MALLOC_MMAP_THRESHOLD_` variables.
    static func tunesMalloc(_ environment: [String: String]) -> Bool {
        if let tunables = environment["GLIBC_TUNABLES"],
            tunables.contains("glibc.malloc.trim_threshold") || tunables.contains("glibc.malloc.mmap_threshold")
        {
            return true
        }
        return environment["MALLOC_TRIM_THRESHOLD_"] != nil || environment["MALLOC_MMAP_THRESHOLD_"] != nil
    }
}
