import Foundation
import RangeTapCurl
import RangeTapTestSupport
import Testing

/// `CurlMulti` and `CurlTransfer` against real origins on 127.0.0.1: the quirk origin (exact
/// bytes, ranges, odd heads) and Python's `http.server`; and against a port nothing listens on.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct CurlTransferTests {
    /// libcurl's `CURL_MAX_WRITE_SIZE`: the most one body call carries.
    static let maxWriteSize = 16 * 1024

    @Test func aTransferReceivesTheExactBytes() async throws {
        let origin = try QuirkOrigin(size: 300_000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        let got = await CurlRecorder.fetch(CurlRequest(url: origin.url("/normal")), on: multi)
        #expect(got.result == .ok)
        #expect(got.status == 200)
        #expect(got.header("Content-Length") == "300000")
        #expect(got.body == QuirkOrigin.expectedBytes(0..<300_000))
        #expect(got.bodyCalls.count > 1)
        #expect(got.bodyCalls.allSatisfy { $0 <= Self.maxWriteSize }, "\(got.bodyCalls.max() ?? 0)")
        #expect(got.rounds >= 1)
        #expect(multi.activeTransfers == 0)
    }

    @Test func aRangeRequestGets206AndOnlyItsBytes() async throws {
        let origin = try QuirkOrigin(size: 300_000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        let request = CurlRequest(url: origin.url("/normal"), headers: ["Range: bytes=1000-50999"])
        let got = await CurlRecorder.fetch(request, on: multi)
        #expect(got.result == .ok)
        #expect(got.status == 206)
        #expect(got.header("Content-Range") == "bytes 1000-50999/300000")
        #expect(got.body == QuirkOrigin.expectedBytes(1000..<51_000))
    }

    @Test func pythonHTTPServerIgnoresRangeAndLibcurlCallsItSuccess() async throws {
        let root = Paths.temporaryDirectory("curl-python")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var generator = SystemRandomNumberGenerator()
        let file = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(file).write(to: URL(fileURLWithPath: root + "/random.bin"))
        let server = try PythonHTTPServer(root: root)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        let got = await CurlRecorder.fetch(
            CurlRequest(url: server.url("random.bin"), headers: ["Range: bytes=0-99"]), on: multi)
        #expect(got.result == .ok, "a 200 to a Range request is no error to libcurl")
        #expect(got.status == 200)
        #expect(got.body == file)
    }

    @Test func aRefusedConnectionCarriesLibcurlsOwnMessage() async throws {
        let ports = [try freePort(), try freePort()]
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        // Two at once, so each message must come from its own transfer's error buffer.
        async let first = CurlRecorder.fetch(CurlRequest(url: "http://127.0.0.1:\(ports[0])/a"), on: multi)
        async let second = CurlRecorder.fetch(CurlRequest(url: "http://127.0.0.1:\(ports[1])/b"), on: multi)
        let results = await [first, second]
        for (port, got) in zip(ports, results) {
            guard case .failed(let code, let message)? = got.result else {
                Issue.record("port \(port): \(String(describing: got.result))")
                continue
            }
            #expect(code == 7, "CURLE_COULDNT_CONNECT")
            // curl_easy_strerror says only "Couldn't connect to server": the address and port
            // are in the error buffer's text alone.
            #expect(message.contains("127.0.0.1 port \(port)"), "\(message)")
            #expect(!message.contains("\u{0}"))
            #expect(got.headerLines.isEmpty && got.body.isEmpty)
        }
        #expect(multi.activeTransfers == 0)
    }

    @Test func headerLinesArriveAsTheOriginSentThem() async throws {
        let origin = try QuirkOrigin(size: 1000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }

        let lower = await CurlRecorder.fetch(CurlRequest(url: origin.url("/lowercase")), on: multi)
        #expect(
            lower.headerText == [
                "HTTP/1.1 200 OK\r\n",
                "Content-type: video/mp4\r\n",
                "accept-ranges: bytes\r\n",
                "content-Length: 1000\r\n",
                "\r\n",
            ])

        let bare = await CurlRecorder.fetch(
            CurlRequest(url: origin.url("/bare-lf"), headers: ["Range: bytes=0-9"]), on: multi)
        #expect(
            bare.headerText == [
                "HTTP/1.1 206 Partial Content\n",
                "Content-Type: video/mp4\n",
                "Accept-Ranges: bytes\n",
                "Content-Range: bytes 0-9/1000\n",
                "Content-Length: 10\n",
                "\n",
            ])
        #expect(bare.body == QuirkOrigin.expectedBytes(0..<10))

        let interim = await CurlRecorder.fetch(CurlRequest(url: origin.url("/interim")), on: multi)
        #expect(
            Array(interim.headerText.prefix(4)) == [
                "HTTP/1.1 103 Early Hints\r\n",
                "Link: </style.css>; rel=preload\r\n",
                "\r\n",
                "HTTP/1.1 200 OK\r\n",
            ])
        #expect(interim.status == 200)
        #expect(interim.result == .ok)
    }

    @Test func requestHeaderLinesGoOutInOrder() async throws {
        let origin = try QuirkOrigin(size: 1000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        let request = CurlRequest(url: origin.url("/echo"), headers: ["X-First: 1", "x-second: two", "Accept:"])
        let got = await CurlRecorder.fetch(request, on: multi)
        let head = String(decoding: got.body, as: UTF8.self)
        #expect(head.hasPrefix("GET /echo HTTP/1.1\r\n"), "\(head)")
        #expect(head.contains("X-First: 1\r\nx-second: two\r\n"), "\(head)")
        #expect(!head.lowercased().contains("accept:"), "an empty `Accept:` removes libcurl's default")
    }

    @Test func aPausedTransferGetsTheSameBytesAfterTheUnpause() async throws {
        let origin = try QuirkOrigin(size: 200_000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        let got = await CurlRecorder.fetch(
            CurlRequest(url: origin.url("/normal")), on: multi, behaviour: .pauseAndResume(times: 3))
        #expect(got.result == .ok)
        #expect(got.resumes == 3)
        #expect(got.body == QuirkOrigin.expectedBytes(0..<200_000))
    }

    @Test func aCancelledTransferEndsAsCancelled() async throws {
        let origin = try QuirkOrigin(size: 400_000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        // 4 KiB every 50 ms: the whole body would take about 5 s; the cancel ends it at the first.
        let got = await CurlRecorder.fetch(
            CurlRequest(url: origin.url("/slow?delay_ms=50")), on: multi, behaviour: .cancelAtFirstBody)
        #expect(got.result == .cancelled)
        #expect(got.body.count < 400_000)
        #expect(got.body == QuirkOrigin.expectedBytes(0..<got.body.count))
        #expect(multi.activeTransfers == 0)
    }

    @Test func anIdleOriginEndsTheTransferWithTheIdleCode() async throws {
        let origin = try QuirkOrigin(size: 20_000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        var request = CurlRequest(url: origin.url("/slow?delay_ms=3000&piece=1000"))
        request.idleTimeoutMs = 400
        let got = await CurlRecorder.fetch(request, on: multi)
        guard case .failed(let code, let message)? = got.result else {
            Issue.record("\(String(describing: got.result))")
            return
        }
        #expect(code == CurlMulti.idleTimeoutCode)
        #expect(message.contains("no data from upstream"), "\(message)")
        #expect(got.body == QuirkOrigin.expectedBytes(0..<1000))
    }

    @Test func aHeadRequestHasNoBody() async throws {
        let origin = try QuirkOrigin(size: 5000)
        let multi = try CurlMulti()
        defer { multi.shutdown() }
        let got = await CurlRecorder.fetch(CurlRequest(url: origin.url("/normal"), method: "HEAD"), on: multi)
        #expect(got.result == .ok)
        #expect(got.status == 200)
        #expect(got.header("Content-Length") == "5000")
        #expect(got.body.isEmpty)
    }
}
