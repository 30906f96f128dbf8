import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import RangeTapCore
import RangeTapCurl
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// What a client that sent something rangetap cannot read is told, and what the live log says.
@Suite("Client errors")
struct ClientErrorMessageTests {
    static let http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    /// The pipeline of ProxyServer up to the proxy handler, with the clear-error handler.
    private func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(HTTPResponseEncoder())
        try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
        try sync.addHandler(HTTPServerPipelineHandler())
        try sync.addHandler(ClientProtocolErrorHandler())
        return channel
    }

    private func written(_ channel: EmbeddedChannel) throws -> String {
        var out = ""
        while var b = try channel.readOutbound(as: ByteBuffer.self) {
            out += b.readString(length: b.readableBytes) ?? ""
        }
        return out
    }

    @Test func http2PrefaceGetsA400ThatSaysUseHTTP11() throws {
        let channel = try channel()
        var buffer = channel.allocator.buffer(capacity: 64)
        buffer.writeString(Self.http2Preface)
        #expect(throws: HTTPParserError.paused) { try channel.writeInbound(buffer) }
        let reply = try written(channel)
        #expect(reply.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(reply)")
        #expect(reply.contains("Connection: close"))
        #expect(reply.contains("--http1"), "\(reply)")
        #expect(reply.contains("use HTTP/1.1"))
        let head = try #require(reply.range(of: "\r\n\r\n"))
        let body = reply[head.upperBound...]
        #expect(reply.contains("Content-Length: \(body.utf8.count)\r\n"))
        _ = try? channel.finish()
    }

    /// In ProxyServer's pipeline (built here as ProxyServer builds it, with this handler in
    /// place of NIO's), on a real socket: the client gets the clear 400, the capture a
    /// `bad-request` error, and the connection closes.
    @Test(.timeLimit(.minutes(1))) func dropsInBeforeProxyHandler() async throws {
        // With --http1 (by default the preface starts h2c: HTTP2RecordingTests).
        let server = try await ClientPipelineServer("h2-preface", configure: { $0.http1Only = true })
        let client = try RawClient(port: server.port)
        try client.send(Self.http2Preface)
        let reply = try client.readToClose().latin1
        #expect(reply.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(reply)")
        #expect(reply.contains("not when recording with --http1"), "\(reply)")
        try await server.stop()
        let events = try CaptureReader(path: server.path).events()
        let error = try #require(events.compactMap { if case .error(let e) = $0 { e } else { nil } }.first)
        #expect(error.kind == .badRequest)
        #expect(error.status == 400)
    }

    @Test func garbageGetsA400ThatNamesTheProblem() throws {
        let channel = try channel()
        var buffer = channel.allocator.buffer(capacity: 64)
        buffer.writeBytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00])  // a TLS ClientHello's start
        _ = try? channel.writeInbound(buffer)
        let reply = try written(channel)
        #expect(reply.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(reply)")
        #expect(reply.contains("not https://"), "\(reply)")
        _ = try? channel.finish()
    }

    @Test func parserErrorsMapToMessagesAUserCanActOn() throws {
        #expect(ClientRequestError.describing(HTTPParserError.paused) == .http2PriorKnowledge)
        #expect(ClientRequestError.describing(HTTPParserError.headerOverflow)?.status == .requestHeaderFieldsTooLarge)
        #expect(ClientRequestError.describing(HTTPParserError.invalidVersion) == .badVersion)
        #expect(
            ClientRequestError.describing(HTTPParserError.invalidHeaderToken)?.description.hasPrefix(
                "malformed HTTP/1.1 request (") == true)
        #expect(ClientRequestError.describing(IOError(errnoCode: ECONNRESET, reason: "read")) == nil)
        #expect(!ClientRequestError.http2PriorKnowledge.description.contains("swift-http-parser"))
    }

    /// The live stderr line escapes control characters and hides URL passwords.
    @Test func liveLogLinesAreSafeForTheTerminal() throws {
        let lines = LinesBox()
        let live = LiveLog { lines.append($0) }
        let url = "http://user:hunter2@127.0.0.1:1/a\u{1B}[2J"
        live.observe([
            .request(
                RequestEvent(
                    t: 1, exchange: 1, connection: 1, method: "GET", target: url, version: "HTTP/1.1", url: url,
                    headers: [])),
            .response(
                ResponseEvent(
                    t: 2, exchange: 1, status: 200,
                    lines: ["HTTP/1.1 200 OK\r\n", "X: \u{1B}]0;x\u{07}\r\n", "\r\n"].map(HeaderLine.init(raw:)),
                    reused: false, upstreamPort: nil)),
        ])
        #expect(lines.all.isEmpty, "no exchange ended yet: \(lines.all)")
        live.observe([
            .error(
                ErrorEvent(
                    t: 3, exchange: 1, connection: 1, kind: .upstream,
                    message: "upstream failed: \u{1B}[1A\u{1B}[2K forged", curlCode: 56)),
            .error(
                ErrorEvent(
                    t: 4, exchange: nil, connection: 2, kind: .badRequest, message: "bad \u{1B}[31m http://a:secret@h/",
                    status: 400)),
        ])
        // One call for the batch: the exchange's line and the connection's, newline-separated.
        let all = lines.all.joined(separator: "\n")
        #expect(lines.all.count == 1, "\(all)")
        #expect(
            all.split(separator: "\n").count == 2 && all.hasPrefix("#1 GET ") && all.contains("\nconn 2 ERROR "),
            "\(all)")
        #expect(!all.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(all)")
        #expect(all.contains("\\x1B[1A\\x1B[2K forged"), "\(all)")
        #expect(!all.contains("hunter2") && !all.contains("secret"), "\(all)")
    }
}

/// Lines collected from a sink, across threads.
final class LinesBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
