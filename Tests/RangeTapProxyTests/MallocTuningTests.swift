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
    /// What the tuning is for: a 512 KiB buffer allocated, filled and freed again and again (a
    /// round buffer's life) faults its pages in every time with glibc's own thresholds set
    /// (128 KiB), and not once after a warm-up with `apply`'s. Page faults are counted for this
    /// thread only (RUSAGE_THREAD); another test sharing the malloc arena can still disturb a
    /// run, so each side is tried a few times and must hold once.
    @Test func aReusedRoundBufferFaultsNoPagesIn() throws {
        let size = 512 * 1024
        func faults(cycles: Int) -> Int {
            let before = MallocTuning.threadMinorFaults ?? 0
            for _ in 0..<cycles {
                let p = malloc(size)!
                memset(p, 1, size)
                free(p)
            }
            return (MallocTuning.threadMinorFaults ?? 0) - before
        }
        try #require(MallocTuning.threadMinorFaults != nil)
        let cycles = 20
        let pages = size / Int(sysconf(Int32(_SC_PAGESIZE)))

        try #require(MallocTuning.setThresholds(mmap: 128 * 1024, trim: 128 * 1024))
        _ = faults(cycles: 2)
        #expect((0..<5).contains { _ in faults(cycles: cycles) >= cycles * pages / 2 })

        try #require(MallocTuning.apply(environment: [:]) == .applied)
        _ = faults(cycles: 2)
        #expect((0..<5).contains { _ in faults(cycles: cycles) < pages })
    }
    #endif
}
