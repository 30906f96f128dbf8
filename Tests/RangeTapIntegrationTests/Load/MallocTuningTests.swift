import Foundation
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The malloc thresholds `rangetap` sets at start (what the environment sets is left alone), and
/// the round pool that keeps upstream buffers from being faulted in again.
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

    #if os(Linux)
    /// What the tuning and the round pool are for, seen from outside: `rangetap record --no-bodies
    /// --no-hash` forwards 32 MiB from nginx (the pool fills with what a transfer holds in
    /// flight), then 64 MiB, and the process's minor page faults are read from `/proc/PID/stat`
    /// around the second. Rounds of 64 KiB and more come from `RoundBufferPool` and are reused in
    /// place; with `--buffer-pool 0` each is unmapped once written and the next round faults its
    /// pages in again. (`--no-hash` keeps the writer from falling behind, which would hold more
    /// rounds at once in some runs and not in others.)
    @Test func roundBuffersAreNotFaultedInAgainEachRound() async throws {
        let dir = Paths.temporaryDirectory("malloc-www")
        let size = 64 << 20
        try Data(QuirkOrigin.expectedBytes(0..<size)).write(to: URL(fileURLWithPath: dir + "/big.bin"))
        let nginx = try NginxServer(root: dir)
        func faults(_ extra: [String]) async throws -> Int {
            let port = try freePort()
            let path = Paths.temporaryDirectory("malloc-capture") + "/m.rtap"
            let recorder = try TestProcess(
                Paths.rangetap,
                ["record", "--listen", "127.0.0.1:\(port)", "--no-bodies", "--no-hash", "-o", path] + extra)
            defer { recorder.stop(signal: SIGINT) }
            try waitForPort(port)
            let curl = try Paths.tool("curl")
            func fetch(_ range: String) throws {
                let r = try runCommand(
                    curl,
                    [
                        "-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-r", range, nginx.url("big.bin"),
                        "-o", "/dev/null", "-w", "%{size_download}",
                    ])
                try #require(r.text == range.split(separator: "-").last.map { String(Int($0)! + 1) })
            }
            try fetch("0-\(size / 2 - 1)")
            let before = try Self.minorFaults(pid: recorder.pid)
            try fetch("0-\(size - 1)")
            return try Self.minorFaults(pid: recorder.pid) - before
        }
        let unpooled = try await faults(["--buffer-pool", "0"])
        let pooled = try await faults([])
        // 64 MiB is 16,384 pages however it is cut into rounds: without the pool each round
        // faults its buffer in again; with it, the whole transfer faults in fewer pages than a
        // sixteenth of that.
        #expect(unpooled >= 128 * 128 / 2, "\(unpooled) faults with --buffer-pool 0")
        #expect(pooled < 128 * 128 / 16, "\(pooled) faults with the round pool (\(unpooled) without)")
    }

    /// Field 10 of `/proc/PID/stat` (minflt), read after the command name's closing parenthesis.
    static func minorFaults(pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        return try #require(Int(fields[7]))
    }
    #endif
}
