import Foundation
import RangeTapTestSupport
import Testing

/// `rangetap inspect --follow` prints exchanges of a capture that is still being written.
@Suite(.serialized)
struct InspectFollowTests {
    @Test func followPrintsRowsAsExchangesEnd() async throws {
        let origin = try QuirkOrigin(size: 1 << 20)
        let port = try freePort()
        let path = Paths.temporaryDirectory("follow") + "/f.rtap"
        let recorder = try TestProcess(Paths.rangetap, ["record", "--listen", "127.0.0.1:\(port)", "-o", path])
        defer { recorder.stop(signal: SIGINT) }
        try waitForPort(port)
        let follower = try TestProcess(Paths.rangetap, ["inspect", path, "--follow"])
        defer { follower.stop(signal: SIGINT) }
        _ = try follower.waitForLine(prefix: "   #")
        _ = try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-r", "0-99", origin.url("/lowercase"), "-o", "/dev/null"])
        let row = try follower.waitForLine(prefix: "  #1 ", timeout: 10)
        #expect(row.contains("bytes=0-99"))
        #expect(row.contains("206"))
        #expect(row.contains("[header-case"))
        _ = try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-r", "0-9", origin.url("/normal"), "-o", "/dev/null"])
        let second = try follower.waitForLine(prefix: "  #2 ", timeout: 10)
        #expect(second.contains("bytes=0-9"))
    }
}
