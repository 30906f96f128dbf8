import RangeTapCore
import Testing

/// Found while fuzzing (issue 10): lines starting with whitespace right after the status line
/// each looked back over every earlier line, so an upstream head of N of them took N² steps.
@Suite("ForwardedResponseHead scaling")
struct ForwardedResponseHeadScalingTests {
    private func lines(_ raw: [String]) -> [HeaderLine] { raw.map(HeaderLine.init(raw:)) }

    @Test func manyContinuationLinesAfterTheStatusLineTakeLinearTime() throws {
        let count = 20_000  // 80 KB, under libcurl's limit for one response head
        let upstream = lines(["HTTP/1.1 200 OK\r\n"] + Array(repeating: " x\r\n", count: count) + ["Content-Length: 0\r\n", "\r\n"])
        let clock = ContinuousClock()
        var head: ForwardedResponseHead?
        let elapsed = try clock.measure {
            head = try ForwardedResponseHead(upstream: upstream, hopByHop: [])
        }
        let h = try #require(head)
        #expect(h.fields == ["Content-Length: 0\r\n"])
        #expect(h.changes.count == count)
        #expect(h.changes.allSatisfy { $0.reason == .whitespaceAfterStatusLine })
        // Quadratic, this took minutes in a debug build; linear, well under a second.
        #expect(elapsed < .seconds(20))
    }

    @Test func continuationsAfterAMalformedLineAreMalformedAndFoldsStillJoin() throws {
        let h = try ForwardedResponseHead(upstream: lines([
            "HTTP/1.1 200 OK\r\n", " a\r\n", "\tb\r\n", "bad line\r\n", " c\r\n", "X: 1\r\n", " d\r\n", "\r\n",
        ]), hopByHop: [])
        #expect(h.fields == ["X: 1 d\r\n"])
        #expect(h.changes.map(\.reason) == [
            .whitespaceAfterStatusLine, .whitespaceAfterStatusLine, .malformedLine, .malformedLine, .obsFold,
        ])
    }
}
