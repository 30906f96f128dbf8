import RangeTapCore
import Testing

/// Found while fuzzing (issue 10): lines starting with whitespace right after the status line
/// each looked back over every earlier line, so an upstream head of N of them took N² steps.
@Suite("ForwardedResponseHead scaling")
struct ForwardedResponseHeadScalingTests {
    private func lines(_ raw: [String]) -> [HeaderLine] { raw.map(HeaderLine.init(raw:)) }

    /// Quadratic, this took minutes in a debug build; linear, well under a second. The suite's
    /// limit is what catches it coming back: no elapsed time is asserted.
    @Test(.timeLimit(.minutes(1))) func manyContinuationLinesAfterTheStatusLineTakeLinearTime() throws {
        let count = 20_000  // 80 KB, under libcurl's limit for one response head
        let upstream = lines(
            ["HTTP/1.1 200 OK\r\n"] + Array(repeating: " x\r\n", count: count) + ["Content-Length: 0\r\n", "\r\n"])
        let h = try ForwardedResponseHead(upstream: upstream, hopByHop: [])
        #expect(h.fields == ["Content-Length: 0\r\n"])
        #expect(h.changes.count == count)
        #expect(h.changes.allSatisfy { $0.reason == .whitespaceAfterStatusLine })
    }

    @Test func continuationsAfterAMalformedLineAreMalformedAndFoldsStillJoin() throws {
        let h = try ForwardedResponseHead(
            upstream: lines([
                "HTTP/1.1 200 OK\r\n", " a\r\n", "\tb\r\n", "bad line\r\n", " c\r\n", "X: 1\r\n", " d\r\n", "\r\n",
            ]), hopByHop: [])
        #expect(h.fields == ["X: 1 d\r\n"])
        #expect(
            h.changes.map(\.reason) == [
                .whitespaceAfterStatusLine, .whitespaceAfterStatusLine, .malformedLine, .malformedLine, .obsFold,
            ])
    }
}
