#if canImport(Glibc)
import Glibc
#endif
@testable import RangeTapProxy
import Testing

/// The malloc thresholds `rangetap` sets at start: round buffers come from the heap, and what
/// the environment sets is left alone.
@Suite("MallocTuning")
struct MallocTuningTests {
    @Test(arguments: [
        ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000"],
        ["GLIBC_TUNABLES": "glibc.pthread.rseq=0:glibc.malloc.mmap_threshold=65536"],
        ["MALLOC_TRIM_THRESHOLD_": "1"],
        ["MALLOC_MMAP_THRESHOLD_": "1"],
    ])
    func leavesTheEnvironmentsThresholds(environment: [String: String]) {
        #expect(MallocTuning.apply(environment: environment) == .leftToEnvironment)
    }

    @Test(arguments: [
        [:],
        ["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"],
        ["MALLOC_ARENA_MAX": "2", "PATH": "/usr/bin"],
    ])
    func otherSettingsDoNotCount(environment: [String: String]) {
        #expect(!MallocTuning.tunesMalloc(environment))
    }

    #if canImport(Glibc)
    /// With glibc's initial threshold (128 KiB) a round buffer (512 KiB) gets a mapping of its
    /// own; after `apply` it is carved from the heap, and a 2 MiB block still gets a mapping: the
    /// threshold took, and is not unbounded. Other tests may map blocks meanwhile, so each check is
    /// tried a few times and must hold once.
    @Test func roundBuffersComeFromTheHeap() throws {
        func mapped(size: Int, count: Int) -> Int {
            let before = MallocTuning.mappedBlocks ?? 0
            let blocks = (0..<count).map { _ in malloc(size) }
            let after = MallocTuning.mappedBlocks ?? 0
            blocks.forEach { free($0) }
            return after - before
        }
        try #require(MallocTuning.setThresholds(mmap: 128 * 1024, trim: 256 * 1024))
        #expect((0..<5).contains { _ in mapped(size: 512 * 1024, count: 8) == 8 })
        try #require(MallocTuning.apply(environment: [:]) == .applied)
        #expect((0..<5).contains { _ in mapped(size: 512 * 1024, count: 8) == 0 })
        #expect((0..<5).contains { _ in mapped(size: 2 << 20, count: 2) == 2 })
    }
    #endif
}
