import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// A quirk origin and Python's http.server as upstreams: each oddity appears in the capture
/// exactly as sent, and clients still get their bytes.
@Suite(.serialized)
struct QuirkOriginRecordingTests {
    let origin: QuirkOrigin

    init() throws {
        origin = try QuirkOrigin(size: 1 << 20)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    /// Records one request through a fresh proxy and returns the exchange and the client's result.
    func record(
        _ path: String, _ curlArgs: [String] = []
    ) async throws -> (ExchangeRecord, CommandResult, RecordedCapture) {
        let proxy = try await ProxyHarness()
        let r = try curl(["-x", proxy.url] + curlArgs + [origin.url(path)])
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        return (ex, r, capture)
    }

    @Test func oddHeaderCaseIsRecordedAndForwardedAsSent() async throws {
        let (ex, r, capture) = try await record("/lowercase", ["-r", "0-99", "-D", "-"])
        let raw = ex.responseLines.map(\.raw)
        #expect(raw.contains("accept-ranges: bytes\r\n"))
        #expect(raw.contains("Content-range: bytes 0-99/\(origin.size)\r\n"))
        #expect(raw.contains("content-Length: 100\r\n"))
        #expect(raw.contains { $0.hasPrefix("Content-type: ") })
        // The client sees the names in the origin's case too.
        #expect(r.text.contains("\r\naccept-ranges: bytes\r\n"))
        #expect(r.text.contains("\r\nContent-range: bytes 0-99/"))
        #expect(try capture.body(of: ex) == Data(QuirkOrigin.expectedBytes(0..<100)))
    }

    @Test func missingAcceptRangesStillRecordsA206() async throws {
        let (ex, _, _) = try await record("/no-accept-ranges", ["-r", "10-19"])
        #expect(ex.status == 206)
        #expect(ex.responseLines.first(named: "Accept-Ranges") == nil)
        #expect(ex.chunks.first?.resourceOffset == 10)
    }

    @Test func a200ForARangeRequestIsRecordedAsTheWholeBody() async throws {
        let (ex, r, capture) = try await record(
            "/ignore-range", ["-r", "0-1", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"])
        #expect(r.text == "200 \(origin.size)")
        #expect(ex.requestRange == "bytes=0-1")
        #expect(ex.status == 200)
        #expect(ex.bytesReceived == Int64(origin.size))
        #expect(ex.chunks.first?.resourceOffset == 0)
        #expect(try capture.body(of: ex) == Data(QuirkOrigin.expectedBytes(0..<origin.size)))
    }

    @Test func slowChunksKeepTheirArrivalTimes() async throws {
        let (ex, r, _) = try await record(
            "/slow?delay_ms=30&piece=4096", ["-r", "0-40959", "-o", "/dev/null", "-w", "%{size_download}"])
        #expect(r.text == "40960")
        #expect(ex.chunks.count >= 8, "10 pieces sent 30 ms apart arrive as separate chunks")
        let span = Double((ex.chunks.last?.t ?? 0) - (ex.chunks.first?.t ?? 0)) / 1e6
        #expect(span >= 200, "chunks spread over \(span) ms, not buffered into one")
    }

    @Test func aConnectionDroppedMidBodyIsAnUpstreamError() async throws {
        let proxy = try await ProxyHarness()
        let r = try curl([
            "-x", proxy.url, "-r", "0-99999", origin.url("/drop"), "-o", "/dev/null", "-w", "%{size_download}",
        ])
        #expect(r.status != 0, "the client learns the body was cut short")
        #expect(r.text == "50000")
        // The proxy keeps serving.
        let again = try curl([
            "-x", proxy.url, "-r", "0-9", origin.url("/normal"), "-o", "/dev/null", "-w", "%{http_code}",
        ])
        #expect(again.text == "206")
        let capture = try await proxy.stopAndRead()
        let ex = capture.exchanges[0]
        guard case .failed(let message) = ex.outcome else {
            Issue.record("expected a failure, got \(ex.outcome)")
            return
        }
        #expect(message.contains("curl error 18"))
        #expect(ex.bytesReceived == 50000)
        #expect(capture.exchanges[1].outcome == .complete)
    }

    @Test func bareLFHeaderLinesAreKeptByteExact() async throws {
        let (ex, r, _) = try await record("/bare-lf", ["-r", "0-9", "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(r.text == "206")
        #expect(ex.responseLines.count >= 4)
        #expect(ex.responseLines.allSatisfy { $0.terminator == "\n" })
        #expect(ex.responseLines.first?.raw == "HTTP/1.1 206 Partial Content\n")
        #expect(ex.responseLines.last?.raw == "\n")
    }

    @Test func duplicatedAndConflictingHeadersAreAllKept() async throws {
        let (ex, _, _) = try await record("/dup", ["-r", "0-9"])
        let raw = ex.responseLines.map(\.raw)
        #expect(raw.contains("X-Dup: one\r\n"))
        #expect(raw.contains("x-dup: two\r\n"))
        #expect(ex.responseLines.values(named: "content-type") == ["video/mp4", "application/octet-stream"])
    }

    @Test func chunkedAndInterimResponses() async throws {
        let (chunked, r, capture) = try await record(
            "/chunked", ["-r", "0-24999", "-o", "/dev/null", "-w", "%{size_download}"])
        #expect(r.text == "25000")
        #expect(chunked.bytesReceived == 25000)
        #expect(try capture.body(of: chunked) == Data(QuirkOrigin.expectedBytes(0..<25000)))
        #expect(chunked.responseLines.first(named: "Transfer-Encoding") == "chunked")

        let (interim, r2, capture2) = try await record(
            "/interim", ["-r", "0-9", "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(r2.text == "206")
        #expect(interim.interimStatuses == [103])
        let types = capture2.events.map(\.type)
        let i = try #require(types.firstIndex(of: "interim"))
        let f = try #require(types.firstIndex(of: "response"))
        #expect(i < f)
    }

    @Test func http10AndConnectionCloseResponses() async throws {
        let (ex, r, _) = try await record(
            "/http10", ["-r", "0-9", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"])
        #expect(r.text == "206 10")
        #expect(ex.responseLines.first?.raw.hasPrefix("HTTP/1.0 206") == true)
        let (ex2, r2, _) = try await record("/close", ["-r", "0-9", "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(r2.text == "206")
        #expect(ex2.responseLines.first(named: "Connection") == "close")
    }

    @Test func requestHeadersTheProxyDoesNotOwnReachTheOriginUnchanged() async throws {
        let (ex, r, _) = try await record(
            "/echo",
            [
                "-H", "If-Match: \"abc\"", "-H", "Icy-MetaData: 1", "-H", "Range: bytes=5-", "-H",
                "Accept-Encoding: identity",
                "-H", "X-Odd-Case: Value", "-H", "Authorization: Bearer secret",
            ])
        let head = r.text
        #expect(head.contains("\r\nIf-Match: \"abc\"\r\n"))
        #expect(head.contains("\r\nIcy-MetaData: 1\r\n"))
        #expect(head.contains("\r\nRange: bytes=5-\r\n"))
        #expect(head.contains("\r\nAccept-Encoding: identity\r\n"))
        #expect(head.contains("\r\nX-Odd-Case: Value\r\n"))
        #expect(
            head.contains("\r\nAuthorization: Bearer secret\r\n"),
            "secrets are forwarded, only the capture redacts them")
        #expect(!head.lowercased().contains("proxy-connection"))
        // The capture redacts the secret.
        #expect(ex.requestHeaders.map(\.raw).contains("Authorization: <redacted>\r\n"))
        #expect(!ex.requestHeaders.map(\.raw).joined().contains("secret"))
    }

    @Test func pythonHTTPServerIgnoresRangeAndSpeaksHTTP10() async throws {
        let dir = Paths.temporaryDirectory("py")
        let bytes = Data(QuirkOrigin.expectedBytes(0..<300_000))
        try bytes.write(to: URL(fileURLWithPath: dir + "/a.bin"))
        let server = try PythonHTTPServer(root: dir)
        let proxy = try await ProxyHarness()
        let r = try curl([
            "-x", proxy.url, "-r", "0-1", server.url("a.bin"), "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
        ])
        #expect(r.text == "200 300000")
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        #expect(ex.requestRange == "bytes=0-1")
        #expect(ex.status == 200)
        #expect(ex.responseLines.first?.raw.hasPrefix("HTTP/1.0 200") == true)
        #expect(ex.responseLines.contains { $0.raw.hasPrefix("Content-type: ") }, "http.server spells it Content-type")
        #expect(try capture.body(of: ex) == bytes)
    }
}
