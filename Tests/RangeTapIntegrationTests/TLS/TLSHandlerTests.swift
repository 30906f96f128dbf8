import Foundation
import NIOCore
import NIOEmbedded
@testable import RangeTapProxy
import RangeTapCore
import RangeTapCurl
import RangeTapTLS
import RangeTapTestSupport
import Testing

/// The intercepting handlers on `EmbeddedChannel`s, no sockets: a libssl client (`TLSHandler` in
/// the client role) talks to `TLSHelloTap` → `TLSHandler` → `TLSSessionHandler`, bytes pumped by
/// hand, and the
/// `tls` event each handshake leaves in the capture is checked.
@Suite(.timeLimit(.minutes(1))) struct TLSHandlerTests {
    struct Rig {
        let server = EmbeddedChannel()
        let client = EmbeddedChannel()
        let writer: CaptureWriter
        let path: String
        let ca: CertificateAuthority

        /// Closes both without waiting on futures (EmbeddedEventLoop runs nothing by itself).
        func stop(_ tests: TLSHandlerTests) throws {
            client.close(promise: nil)
            try tests.pump(self)
            server.close(promise: nil)
            try tests.pump(self)
        }

        /// Both channels become active; the client starts its handshake.
        func start() throws {
            let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
            server.connect(to: address, promise: nil)
            client.connect(to: address, promise: nil)
        }
    }

    /// The server side as TunnelStarter builds it, and a client that trusts `trust` (nil: the
    /// system store only, which does not hold rangetap's CA).
    func rig(sni: String?, trustRangetap: Bool, alpn: [String] = ["http/1.1"]) throws -> Rig {
        let dir = Paths.temporaryDirectory("tls-embedded")
        let ca = try CertificateAuthority.create(in: dir + "/ca")
        let path = dir + "/c.rtap"
        let clock = MonotonicClock()
        let writer = try CaptureWriter(
            path: path,
            header: CaptureHeader(
                tool: "t", startedAt: "2026-11-23T00:00:00Z", bodies: true, redacted: true, listen: "127.0.0.1:0",
                upstream: nil), clock: clock)
        var config = ProxyConfiguration(listenPort: 0, capturePath: path)
        config.caDirectory = ca.directory
        let contexts = InterceptContexts(leaves: try LeafCertificates(authority: ca))
        let shared = RecordingContext(
            configuration: config, writer: writer, clock: clock, upstream: CurlUpstream(multi: try CurlMulti()),
            intercept: contexts)
        let r = Rig(writer: writer, path: path, ca: ca)
        let hello = TLSHelloTap()
        try r.server.pipeline.syncOperations.addHandler(hello)
        try r.server.pipeline.syncOperations.addHandler(
            TLSHandler(context: try contexts.context(for: "media.example.com"), role: .server))
        try r.server.pipeline.syncOperations.addHandler(
            TLSSessionHandler(
                shared: shared, hello: hello, connection: 1, exchange: 1, authority: "media.example.com:443",
                timeout: nil))
        // Not trusting rangetap: the system's CAs only, which do not hold it.
        let clientContext = try TLSContext.client(
            verify: true, extraCAFile: trustRangetap ? ca.certificatePath : nil, applicationProtocols: alpn)
        try r.client.pipeline.syncOperations.addHandler(
            TLSHandler(context: clientContext, role: .client(serverName: sni)))
        return r
    }

    /// Moves bytes both ways until neither side has anything to send.
    func pump(_ r: Rig) throws {
        for _ in 0..<50 {
            r.server.embeddedEventLoop.run()
            r.client.embeddedEventLoop.run()
            var moved = false
            while let b = try r.client.readOutbound(as: ByteBuffer.self) {
                moved = true
                _ = try? r.server.writeInbound(b)
            }
            while let b = try r.server.readOutbound(as: ByteBuffer.self) {
                moved = true
                _ = try? r.client.writeInbound(b)
            }
            if !moved { return }
        }
    }

    func tlsEvents(_ r: Rig) throws -> [TLSEvent] {
        r.writer.close()
        return try CaptureReader(path: r.path).events().compactMap { if case .tls(let e) = $0 { e } else { nil } }
    }

    @Test func aTrustingClientCompletesAndTheHandshakeIsRecorded() throws {
        let r = try rig(sni: "media.example.com", trustRangetap: true)
        try r.start()
        try pump(r)
        let events = try tlsEvents(r)
        #expect(events.count == 1)
        let e = try #require(events.first)
        #expect(e.outcome == .established)
        #expect(e.serverName == "media.example.com")
        #expect(e.alpn == "http/1.1")
        #expect(e.version == "TLSv1.3")
        #expect(e.cipher?.hasPrefix("TLS_") == true)
        // Application data flows through the handlers unchanged.
        var hello = r.client.allocator.buffer(capacity: 8)
        hello.writeString("GET / HT")
        r.client.writeAndFlush(hello, promise: nil)
        try pump(r)
        let got = try r.server.readInbound(as: ByteBuffer.self)
        #expect(got.map { String(buffer: $0) } == "GET / HT")
        try r.stop(self)
    }

    @Test func anSNIForAnotherHostGetsThatHostsLeaf() throws {
        let r = try rig(sni: "other.example.net", trustRangetap: true)
        try r.start()
        try pump(r)
        // The client verified the name: it accepted a certificate for other.example.net.
        let e = try #require(try tlsEvents(r).first)
        #expect(e.outcome == .established && e.serverName == "other.example.net")
        try r.stop(self)
    }

    @Test func aClientThatDoesNotTrustTheCAIsRecordedAsRejected() throws {
        let r = try rig(sni: "media.example.com", trustRangetap: false)
        try r.start()
        try pump(r)
        let e = try #require(try tlsEvents(r).first)
        #expect(e.outcome == .rejected, "\(e.reason ?? "")")
        #expect(e.reason?.contains("rangetap ca info") == true)
        #expect(!r.server.isActive, "the server side closed the connection")
        try r.stop(self)
    }

    @Test func failuresAreClassified() {
        let none = TLSHandlerError.handshakeFailed(reasons: [], verification: nil, nameMismatch: false)
        let cert = TLSSessionHandler.classify(none, certificateSent: true, caDirectory: "/x")
        #expect(cert.0 == .rejected && cert.1.contains("/x/rangetap-ca.pem"))
        #expect(TLSSessionHandler.classify(none, certificateSent: false, caDirectory: nil).0 == .failed)
        #expect(
            TLSSessionHandler.classify(TLSHandlerError.uncleanShutdown, certificateSent: false, caDirectory: nil).0
                == .rejected)
        // The client's alert names the refusal; a client that speaks no TLS is a failure, not a refusal.
        let alert = TLSHandlerError.handshakeFailed(
            reasons: ["TLSV1_ALERT_UNKNOWN_CA"], verification: nil, nameMismatch: false)
        let refused = TLSSessionHandler.classify(alert, certificateSent: true, caDirectory: nil)
        #expect(refused.0 == .rejected && refused.1.contains("(TLSV1_ALERT_UNKNOWN_CA)"))
        let plain = TLSHandlerError.handshakeFailed(
            reasons: ["WRONG_VERSION_NUMBER"], verification: nil, nameMismatch: false)
        let notTLS = TLSSessionHandler.classify(plain, certificateSent: true, caDirectory: nil)
        #expect(notTLS.0 == .failed && notTLS.1.contains("(WRONG_VERSION_NUMBER)"))
    }
}
