import Foundation
import RangeTapCore
@testable import RangeTapProxy
import RangeTapTestSupport
import Synchronization
import Testing

/// Request bodies go to the origin as they arrive (issue 37, item 8): they were read whole first,
/// 64 MiB at most per request (413 beyond), so ten endless uploads held 640 MiB and an origin
/// saw an upload only once it had ended. The sink origin (Tests/Origins/sink_origin.py) counts
/// what reaches it; raw sockets, curl and the Python h2 package are the clients.
@Suite(.serialized)
final class RequestBodyStreamingTests {
    let sink: SinkOrigin

    init() throws {
        sink = try SinkOrigin()
    }

    deinit {
        sink.stop()
    }

    /// 200 MB promised and 4 MiB sent: the origin has the 4 MiB while the client has sent no
    /// more; the client leaving ends the upload, and the proxy serves on.
    @Test(.timeLimit(.minutes(1))) func aBodyReachesTheOriginWhileTheClientIsStillSending() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 10)
        try client.send(
            "POST \(sink.url("big")) HTTP/1.1\r\nHost: 127.0.0.1:\(sink.port)\r\nContent-Length: 209715200\r\n\r\n")
        try client.send([UInt8](repeating: 0x61, count: 4 << 20))
        #expect(sink.waitForTotal(4 << 20) == 4 << 20, "the origin got \(sink.total) of the 4 MiB sent")
        #expect(
            proxy.server.bodyBytesHeld <= RequestBody.highWater,
            "rangetap holds \(proxy.server.bodyBytesHeld) bytes of it")
        client.close()
        let after = try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", "", "-x", proxy.url, sink.url("after")])
        #expect(after.text == "sink\n", "\(after.text) \(after.stderr)")
        #expect(sink.completed == ["GET /after 0"], "the cut upload never reached the origin whole: \(sink.completed)")
        let capture = try await proxy.stopAndRead()
        let upload = try #require(capture.exchanges.first { $0.url?.hasSuffix("/big") == true })
        #expect(upload.method == "POST")
        let errors = capture.events("error").compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errors.contains { $0.exchange == upload.id && $0.kind == .client }, "\(errors)")
    }

    /// curl uploads 96 MiB, chunked from a pipe and with a length from a file: the origin gets
    /// every byte (its answer counts them), and what rangetap holds for the body at any moment,
    /// sampled throughout, stays within its queue.
    @Test(.timeLimit(.minutes(2))) func uploadsArriveWholeWhileRangetapHoldsLittleOfThem() async throws {
        let proxy = try await ProxyHarness()
        let size = 96 << 20
        let file = Paths.temporaryDirectory("upload") + "/body.bin"
        _ = FileManager.default.createFile(atPath: file, contents: Data(repeating: 0x5A, count: size))
        let held = HeldBytesSampler(proxy.server)
        defer { held.stop() }
        let chunked = try runCommand(
            "/bin/sh",
            [
                "-c",
                "cat \(file) | curl -s --noproxy '' -x \(proxy.url) -T - -H 'Transfer-Encoding: chunked' \(sink.url("chunked"))",
            ], timeout: 90)
        #expect(chunked.text == "received \(size)\n", "\(chunked.text) \(chunked.stderr)")
        let sized = try runCommand(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", proxy.url, "--data-binary", "@\(file)", sink.url("sized")], timeout: 90)
        #expect(sized.text == "received \(size)\n", "\(sized.text) \(sized.stderr)")
        held.stop()
        #expect(held.most <= 2 * RequestBody.highWater, "rangetap held up to \(held.most) bytes of a body")
        #expect(sink.completed == ["PUT /chunked \(size)", "POST /sized \(size)"], "\(sink.completed)")
        let capture = try await proxy.stopAndRead()
        #expect(
            capture.exchanges.count == 2 && capture.exchanges.allSatisfy { $0.outcome == .complete && $0.status == 200 }
        )
        #expect(proxy.server.bodyBytesHeld == 0)
    }

    /// Ten HTTP/2 uploads with no end (h2c, two connections of five streams) for 3 s: the origin
    /// gets them as they come, and what rangetap holds for them, sampled throughout, stays
    /// within a queue per stream.
    @Test(.timeLimit(.minutes(1))) func endlessHTTP2UploadsStreamToTheOrigin() async throws {
        let proxy = try await ProxyHarness()
        let held = HeldBytesSampler(proxy.server)
        defer { held.stop() }
        let client =
            "python3 \(Paths.root)/Tests/Clients/h2_upload_flood.py --proxy 127.0.0.1:\(proxy.port) --authority 127.0.0.1:\(sink.port) --path /flood --streams 5 --seconds 3"
        let r = try runCommand("/bin/sh", ["-c", "\(client) > /dev/null & \(client) > /dev/null & wait"], timeout: 40)
        held.stop()
        #expect(r.status == 0, "\(r.stderr)")
        let streamed = sink.waitForTotal(8 << 20, seconds: 5)
        #expect(streamed >= 8 << 20, "the origin got \(streamed) bytes of the uploads")
        #expect(held.most <= 10 * 2 * RequestBody.highWater, "rangetap held up to \(held.most) bytes")
        #expect(sink.completed.isEmpty, "an endless upload never ends at the origin: \(sink.completed)")
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.filter { $0.method == "POST" }.count == 10)
        #expect(proxy.server.bodyBytesHeld == 0)
    }
}

/// Samples what a proxy holds for request bodies (``ProxyServer/bodyBytesHeld``) every 2 ms on
/// a thread of its own, keeping the most seen, until stopped.
private final class HeldBytesSampler: Sendable {
    private let largest = Atomic<Int>(0)
    private let done = Atomic<Bool>(false)

    init(_ server: ProxyServer) {
        Thread { [self] in
            while !done.load(ordering: .relaxed) {
                let now = server.bodyBytesHeld
                if now > largest.load(ordering: .relaxed) { largest.store(now, ordering: .relaxed) }
                usleep(2_000)
            }
        }.start()
    }

    /// The most bytes seen held.
    var most: Int { largest.load(ordering: .relaxed) }

    func stop() { done.store(true, ordering: .relaxed) }
}
