import Foundation
import RangeTapTestSupport
import Testing

/// `rangetap inspect --follow` prints exchanges of a capture that is still being written.
@Suite(.serialized)
struct InspectFollowTests {
    /// The quirk origin (1 MiB) and `rangetap record` on a free port writing a new capture.
    static func recording() throws -> (origin: QuirkOrigin, port: Int, path: String, recorder: TestProcess) {
        let origin = try QuirkOrigin(size: 1 << 20)
        let port = try freePort()
        let path = Paths.temporaryDirectory("follow") + "/f.rtap"
        let recorder = try TestProcess(Paths.rangetap, ["record", "--listen", "127.0.0.1:\(port)", "-o", path])
        do {
            try waitForPort(port)
        } catch {
            recorder.stop(signal: SIGINT)
            throw error
        }
        return (origin, port, path, recorder)
    }

    @Test func followPrintsRowsAsExchangesEnd() async throws {
        let (origin, port, path, recorder) = try Self.recording()
        defer { recorder.stop(signal: SIGINT) }
        let follower = try TestProcess(Paths.rangetap, ["inspect", path, "--follow"])
        defer { follower.stop(signal: SIGINT) }
        _ = try follower.waitForLine(prefix: "   #")
        _ = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-r", "0-99", origin.url("/lowercase"), "-o",
                "/dev/null",
            ])
        let row = try follower.waitForLine(prefix: "  #1 ", timeout: 10)
        #expect(row.contains("bytes=0-99"))
        #expect(row.contains("206"))
        #expect(row.contains("[header-case"))
        _ = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-r", "0-9", origin.url("/normal"), "-o",
                "/dev/null",
            ])
        let second = try follower.waitForLine(prefix: "  #2 ", timeout: 10)
        #expect(second.contains("bytes=0-9"))
    }

    /// An exchange still in flight shows before its row: a line as it starts, then progress
    /// lines (in a pipe, every 2 s) with the bytes received so far.
    @Test func followShowsExchangesInFlight() async throws {
        let (origin, port, path, recorder) = try Self.recording()
        defer { recorder.stop(signal: SIGINT) }
        let follower = try TestProcess(Paths.rangetap, ["inspect", path, "--follow"])
        defer { follower.stop(signal: SIGINT) }
        _ = try follower.waitForLine(prefix: "   #")
        // The origin sends 4 KB every 20 ms: about 5 s for 1 MiB, long enough for progress lines.
        let client = try TestProcess(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", origin.url("/slow"), "-o", "/dev/null"])
        defer { client.stop() }
        var progress = try follower.waitForLine(prefix: "  … #1 GET /slow 200 received", timeout: 10)
        // With nothing received there is no rate (nothing to divide).
        if progress.contains(" received 0 B ") { #expect(!progress.contains("/s)"), "\(progress)") }
        if !progress.contains("/s)") {
            // Read between the head and the first chunk, or at the first chunk's instant: no
            // rate yet; the next progress line, 2 s on, has bytes and a rate.
            progress = try follower.waitForLine(prefix: "  … #1 GET /slow 200 received", timeout: 10)
        }
        #expect(progress.contains(" B in ") && progress.contains("/s)"), "\(progress)")
        let row = try follower.waitForLine(prefix: "  #1 ", timeout: 20)
        #expect(row.contains("1048576/1048576"), "\(row)")
    }

    /// On a terminal (a pty from util-linux `script`), the exchanges in flight are a block under
    /// the rows, erased and redrawn in place (cursor up, clear) as they progress and end.
    @Test func onATerminalInFlightExchangesAreRedrawnInPlace() async throws {
        let (origin, port, path, recorder) = try Self.recording()
        defer { recorder.stop(signal: SIGINT) }
        // Started first, so the capture exists when the follower opens it.
        let client = try TestProcess(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", origin.url("/slow"), "-o", "/dev/null"])
        defer { client.stop() }
        let follow = "\(Paths.rangetap) inspect \(path) --follow --color never"
        let r = try runCommand(
            "/usr/bin/timeout", ["-s", "INT", "8", try Paths.tool("script"), "-qfec", follow, "/dev/null"], timeout: 30)
        let out = r.text
        #expect(out.contains("  … #1 GET /slow 200 received"), "\(out.suffix(2000))")
        #expect(out.contains("\u{1B}[1F\u{1B}[J"), "the block is erased before it is drawn again")
        #expect(
            out.contains("  #1 ") && out.contains("1048576/1048576"),
            "the row replaces the block when the exchange ends")
    }
}
