import NIOCore
import NIOEmbedded
import RangeTapCore
@testable import RangeTapProxy
import RangeTapTestSupport
import RangeTapTLS
import Testing

/// `TunnelStarter` on an `EmbeddedChannel`: a CONNECT to an intercepted host is answered 200,
/// TLS with a leaf minted for the host takes the place of the plain HTTP handlers, and a request
/// inside becomes an exchange with an `https://` URL whose upstream half is scripted
/// (``ScriptedUpstream``); a CONNECT target that is no host:port is refused. A libssl
/// client (`TLSHandler`) trusting rangetap's CA is the other end; bytes are moved by hand.
@Suite struct TunnelStarterEmbeddedTests {
    let upstream = ScriptedUpstream()
    let log = CaptureLog()
    let server = EmbeddedChannel()
    let client = EmbeddedChannel()
    let ca: CertificateAuthority

    init() throws {
        let dir = Paths.temporaryDirectory("tunnel-embedded")
        ca = try CertificateAuthority.create(in: dir + "/ca")
        var config = ProxyConfiguration(listenPort: 0, capturePath: "/dev/null")
        config.caDirectory = ca.directory
        // HTTP/1.1 inside, and no verification of the (scripted) origin: no TLS handshake with it
        // before the tunnel (the probe needs a real event loop and a real origin; HTTPSInterceptionTests).
        config.http1Only = true
        config.insecureUpstream = true
        let contexts = InterceptContexts(leaves: try LeafCertificates(authority: ca))
        let shared = RecordingContext(
            configuration: config, writer: log, clock: ManualClock(), upstream: upstream, intercept: contexts)
        try ProxyServer.addClientHandlers(to: server, context: shared)
        try server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
    }

    /// Everything the server wrote, as text.
    func serverText() throws -> String {
        var text = ""
        while var b = try server.readOutbound(as: ByteBuffer.self) {
            text += b.readString(length: b.readableBytes) ?? ""
        }
        return text
    }

    /// Moves bytes both ways until neither side has anything to send.
    func pump() throws {
        for _ in 0..<100 {
            server.embeddedEventLoop.run()
            client.embeddedEventLoop.run()
            var moved = false
            while let b = try client.readOutbound(as: ByteBuffer.self) {
                moved = true
                try server.writeInbound(b)
            }
            while let b = try server.readOutbound(as: ByteBuffer.self) {
                moved = true
                // An empty write (a flush with nothing encrypted): no bytes to move.
                if b.readableBytes > 0 { try client.writeInbound(b) }
            }
            if !moved { return }
        }
        Issue.record("the two sides never went quiet")
    }

    @Test func anInterceptedTunnelCarriesHTTPSExchangesToTheUpstream() throws {
        try server.writeInbound(
            ByteBuffer(string: "CONNECT media.example.com:443 HTTP/1.1\r\nHost: media.example.com:443\r\n\r\n"))
        server.embeddedEventLoop.run()
        #expect(try serverText() == "HTTP/1.1 200 Connection Established\r\n\r\n")
        // The client's TLS, trusting rangetap's CA (and the system's), verifying the host's name.
        let tls = try TLSContext.client(verify: true, extraCAFile: ca.certificatePath)
        try client.pipeline.syncOperations.addHandler(
            TLSHandler(context: tls, role: .client(serverName: "media.example.com")))
        try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        try pump()
        client.writeAndFlush(
            ByteBuffer(string: "GET /v.mp4 HTTP/1.1\r\nHost: media.example.com\r\nRange: bytes=0-1\r\n\r\n"),
            promise: nil)
        try pump()
        let t = try #require(upstream.transfers.first, "the request inside the tunnel never reached the upstream")
        #expect(t.request?.url == "https://media.example.com/v.mp4")
        t.head("HTTP/1.1 206 Partial Content", ["Content-Range: bytes 0-1/2", "Content-Length: 2"])
        t.body("ok")
        t.end()
        try pump()
        var text = ""
        while var b = try client.readInbound(as: ByteBuffer.self) {
            text += b.readString(length: b.readableBytes) ?? ""
        }
        #expect(text == "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-1/2\r\nContent-Length: 2\r\n\r\nok")
        #expect(
            log.all.contains {
                if case .tls(let e) = $0 {
                    e.outcome == .established && e.serverName == "media.example.com"
                } else {
                    false
                }
            })
        guard case .end(let end)? = log.settled.first else {
            Issue.record("expected an end, got \(log.settled)")
            return
        }
        #expect(end.delivered == 2)
    }

    @Test func aConnectTargetThatIsNoHostAndPortIsRefused() throws {
        try server.writeInbound(
            ByteBuffer(string: "CONNECT media.example.com HTTP/1.1\r\nHost: media.example.com\r\n\r\n"))
        server.embeddedEventLoop.run()
        let answer = try serverText()
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(answer.contains("is not host:port"))
        #expect(!server.isActive)
        #expect(upstream.transfers.isEmpty)
        guard case .error(let e)? = log.settled.first else {
            Issue.record("expected the refusal recorded, got \(log.settled)")
            return
        }
        #expect(e.kind == .refused && e.status == 400)
    }
}
