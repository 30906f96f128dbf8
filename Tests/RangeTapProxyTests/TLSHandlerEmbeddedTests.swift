import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOTLS
import RangeTapTLS
import RangeTapTestSupport
import Testing

/// `TLSHandler` on both ends of a pair of `EmbeddedChannel`s (libssl on each side, bytes moved
/// by hand): ALPN, writes made before the handshake, close_notify each way, a hang-up without
/// it, a peer that speaks no TLS, certificate verification, and the key log.
@Suite(.timeLimit(.minutes(1))) struct TLSHandlerEmbeddedTests {
    /// Records what reaches the top of a pipeline: events, errors, plaintext.
    final class Top: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var events: [TLSUserEvent] = []
        var errors: [any Error] = []
        var text = ""
        var inactive = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            text += String(buffer: unwrapInboundIn(data))
        }
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let e = event as? TLSUserEvent { events.append(e) }
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append(error) }
        func channelInactive(context: ChannelHandlerContext) { inactive = true }

        var alpn: String?? {
            for case .handshakeCompleted(let p) in events { return .some(p) }
            return nil
        }
        var tlsErrors: [TLSHandlerError] { errors.compactMap { $0 as? TLSHandlerError } }
    }

    struct Pair {
        let server = EmbeddedChannel()
        let client = EmbeddedChannel()
        let serverTop = Top()
        let clientTop = Top()
        let ca: CertificateAuthority
    }

    static let host = "media.example.com"

    func pair(
        serverProtocols http2: Bool = false, clientProtocols: [String] = ["http/1.1"], trust: Bool = true,
        name: String? = host, keyLog: KeyLogFile? = nil, connect: Bool = true
    ) throws -> Pair {
        let dir = Paths.temporaryDirectory("tls-handler")
        let ca = try CertificateAuthority.create(in: dir + "/ca")
        let contexts = InterceptContexts(leaves: try LeafCertificates(authority: ca), keyLog: keyLog)
        let p = Pair(ca: ca)
        try p.server.pipeline.syncOperations.addHandler(
            TLSHandler(context: try contexts.context(for: Self.host, http2: http2), role: .server))
        try p.server.pipeline.syncOperations.addHandler(p.serverTop)
        let client = try TLSContext.client(
            verify: true, extraCAFile: trust ? ca.certificatePath : nil, applicationProtocols: clientProtocols)
        try p.client.pipeline.syncOperations.addHandler(TLSHandler(context: client, role: .client(serverName: name)))
        try p.client.pipeline.syncOperations.addHandler(p.clientTop)
        if connect {
            let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
            p.server.connect(to: address, promise: nil)
            p.client.connect(to: address, promise: nil)
            try pump(p)
        }
        return p
    }

    /// Moves bytes both ways until neither side has anything to send.
    func pump(_ p: Pair) throws {
        for _ in 0..<100 {
            p.server.embeddedEventLoop.run()
            p.client.embeddedEventLoop.run()
            var moved = false
            while let b = try p.client.readOutbound(as: ByteBuffer.self) {
                moved = true
                if p.server.isActive { _ = try? p.server.writeInbound(b) }
            }
            while let b = try p.server.readOutbound(as: ByteBuffer.self) {
                moved = true
                if p.client.isActive { _ = try? p.client.writeInbound(b) }
            }
            if !moved { return }
        }
        Issue.record("the two sides never went quiet")
    }

    @Test func theServersOrderChoosesAmongWhatTheClientOffers() throws {
        let both = try pair(serverProtocols: true, clientProtocols: ["http/1.1", "h2"])
        #expect(both.serverTop.alpn == .some("h2") && both.clientTop.alpn == .some("h2"))
        let one = try pair(serverProtocols: true, clientProtocols: ["http/1.1"])
        #expect(one.serverTop.alpn == .some("http/1.1"))
        let none = try pair(serverProtocols: true, clientProtocols: [])
        #expect(none.serverTop.alpn == .some(nil), "no ALPN offered: the handshake completes without")
        let other = try pair(serverProtocols: false, clientProtocols: ["spdy/3"])
        #expect(other.serverTop.alpn == .some(nil), "nothing in common: the handshake completes without")
    }

    @Test func writesBeforeTheHandshakeWaitAndEveryByteArrivesInOrder() throws {
        let p = try pair(connect: false)
        // Written and flushed before either side is active: held until the handshake is done.
        let early = p.client.writeAndFlush(ByteBuffer(string: "GET /early"))
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
        p.server.connect(to: address, promise: nil)
        p.client.connect(to: address, promise: nil)
        try pump(p)
        var big = ""
        for i in 0..<3_000 { big += "line \(i) of a body larger than one record\n" }
        p.server.write(ByteBuffer(string: "HTTP/1.1 200 OK\r\n"), promise: nil)
        p.server.write(ByteBuffer(string: big), promise: nil)
        let last = p.server.writeAndFlush(ByteBuffer(string: "end"))
        try pump(p)
        #expect(p.serverTop.text == "GET /early")
        #expect(p.clientTop.text == "HTTP/1.1 200 OK\r\n" + big + "end")
        let done = NIOLockedValueBox(0)
        early.whenSuccess { done.withLockedValue { $0 += 1 } }
        last.whenSuccess { done.withLockedValue { $0 += 1 } }
        p.client.embeddedEventLoop.run()
        p.server.embeddedEventLoop.run()
        #expect(done.withLockedValue { $0 } == 2, "the promises of writes complete once their ciphertext is written")
    }

    @Test func closeNotifyIsAnsweredAndTheConnectionClosesCleanly() throws {
        let p = try pair()
        p.client.close(promise: nil)
        try pump(p)
        #expect(!p.server.isActive, "the server closed on the client's close_notify")
        #expect(p.serverTop.tlsErrors.isEmpty, "a clean close is no error: \(p.serverTop.errors)")
        #expect(p.serverTop.inactive)
    }

    @Test func aHangUpWithoutCloseNotifyIsAnUncleanShutdown() throws {
        let p = try pair()
        // The client's socket goes away below its TLS: no close_notify is sent.
        _ = try p.client.readOutbound(as: ByteBuffer.self)
        p.server.pipeline.fireChannelInactive()
        #expect(p.serverTop.tlsErrors == [.uncleanShutdown])
    }

    @Test func aPeerThatSpeaksNoTLSFailsTheHandshakeWithLibsslsReason() throws {
        let p = try pair(connect: false)
        try p.server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        _ = try? p.server.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
        p.server.embeddedEventLoop.run()
        let error = try #require(p.serverTop.tlsErrors.first)
        guard case .handshakeFailed(let reasons, _, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(reasons.contains("HTTP_REQUEST") || reasons.contains("WRONG_VERSION_NUMBER"), "\(reasons)")
        #expect(!p.server.isActive)
    }

    @Test func theClientVerifiesTheChainAndTheName() throws {
        let untrusted = try pair(trust: false)
        guard case .handshakeFailed(_, let why?, false)? = untrusted.clientTop.tlsErrors.first else {
            Issue.record("no verification failure: \(untrusted.clientTop.errors)")
            return
        }
        #expect(why.contains("self-signed"), "rangetap's CA is not in the system's store: \(why)")
        let wrongName = try pair(name: "elsewhere.example.org")
        // The server switched to a leaf for the SNI it was sent, so the name matches: verified.
        #expect(wrongName.clientTop.alpn == .some("http/1.1"), "\(wrongName.clientTop.errors)")
        let address = try pair(name: "127.0.0.1")
        guard case .handshakeFailed(_, _, true)? = address.clientTop.tlsErrors.first else {
            Issue.record("an IP literal the leaf does not name verified: \(address.clientTop.errors)")
            return
        }
    }

    @Test func theKeyLogGetsEverySessionsSecretsALinePerSecret() throws {
        let dir = Paths.temporaryDirectory("tls-keylog")
        let path = dir + "/keys.log"
        let log = try KeyLogFile(path: path)
        _ = try pair(keyLog: log)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let labels = Set(lines.compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(
            labels.isSuperset(of: [
                "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0",
                "SERVER_TRAFFIC_SECRET_0",
            ]), "\(labels)")
        #expect(lines.allSatisfy { $0.split(separator: " ").count == 3 })
    }
}

@available(*, unavailable)
extension TLSHandlerEmbeddedTests.Top: Sendable {}
