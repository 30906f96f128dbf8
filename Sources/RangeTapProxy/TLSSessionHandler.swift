import NIOCore
import NIOTLS
import RangeTapCore
import RangeTapTLS

/// Sits right after TLS in an intercepted tunnel and records how the handshake ended: a `tls`
/// event that is `established` (with SNI, version, ALPN and cipher), `rejected` (the client
/// refused the minted certificate: an alert such as unknown_ca, or a close mid-handshake), or
/// `failed`. Closes a connection whose handshake does not finish within the head timeout.
/// After the handshake, a client closing without close_notify is an ordinary hang-up; one that
/// sends close_notify gets the connection closed at once (rangetap's close_notify, then the
/// socket), as NIO closes a plain connection on its EOF (``TLSHandler`` does the closing; a
/// TCP half-close below TLS arrives here as `inputClosed`, and closes too, rather than leave the
/// connection open until the client gave up waiting: Python's asyncio waits 30 s).
final class TLSSessionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let shared: RecordingContext
    private let hello: TLSHelloTap
    private let connection: Int
    private let exchange: Int
    private let authority: String
    private let timeout: TimeAmount?
    private var timer: Scheduled<Void>?
    private var settled = false

    init(
        shared: RecordingContext, hello: TLSHelloTap, connection: Int, exchange: Int, authority: String,
        timeout: TimeAmount?
    ) {
        self.shared = shared
        self.hello = hello
        self.connection = connection
        self.exchange = exchange
        self.authority = authority
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let timeout else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = bound.value
            handler.timer = nil
            handler.settle(
                .failed,
                reason: "no TLS handshake within \(Double(timeout.nanoseconds) / 1e9) s of the CONNECT (--head-timeout)"
            )
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? ChannelEvent, e == .inputClosed {
            context.close(promise: nil)
            return
        }
        if let tls = event as? TLSUserEvent, case .handshakeCompleted(let alpn) = tls {
            let version =
                (try? context.pipeline.syncOperations.handler(type: TLSHandler.self))?.negotiatedVersion.map(
                    TLSHello.versionName) ?? hello.server.map { TLSHello.versionName($0.version) }
            settle(.established, version: version, alpn: alpn)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !settled {
            let (outcome, reason) = Self.classify(
                error, certificateSent: hello.server != nil, caDirectory: shared.configuration.caDirectory)
            settle(outcome, reason: reason)
            context.close(promise: nil)
            return
        }
        if let tls = error as? TLSHandlerError, tls == .uncleanShutdown {
            // A client that hangs up without close_notify: how players cancel. Not an error.
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !settled {
            settle(
                .rejected,
                reason:
                    "the client closed the connection during the TLS handshake: it may not trust rangetap's CA, or pin the server's certificate. \(Self.trustHint(shared.configuration.caDirectory))"
            )
        }
        context.fireChannelInactive()
    }

    private func settle(_ outcome: TLSEvent.Outcome, version: String? = nil, alpn: String? = nil, reason: String? = nil)
    {
        guard !settled else { return }
        settled = true
        timer?.cancel()
        timer = nil
        shared.writer.record(
            .tls(
                TLSEvent(
                    t: shared.clock.now(), connection: connection, exchange: exchange, authority: authority,
                    outcome: outcome,
                    serverName: hello.client?.serverName,
                    version: version ?? hello.server.map { TLSHello.versionName($0.version) },
                    alpn: alpn, cipher: hello.server.map { TLSHello.cipherName($0.cipherSuite) }, reason: reason)))
    }

    /// Rejected when the client's alert says it refused the certificate, or when it ended the
    /// handshake after rangetap's certificate went out (TLS 1.3 alerts are encrypted, and
    /// clients differ in what they send); failed otherwise.
    static func classify(_ error: any Error, certificateSent: Bool, caDirectory: String?) -> (TLSEvent.Outcome, String)
    {
        let text = "\(error)"
        let codes = (error as? TLSHandlerError)?.reasons ?? []
        let said = codes.isEmpty ? "" : " (\(codes.joined(separator: ", ")))"
        let upper = text.uppercased()
        let refusals = [
            "UNKNOWN_CA", "BAD_CERTIFICATE", "CERTIFICATE_UNKNOWN", "UNSUPPORTED_CERTIFICATE", "CERTIFICATE_EXPIRED",
            "CERTIFICATE_REVOKED", "ACCESS_DENIED",
        ]
        if refusals.contains(where: { upper.contains($0) }) {
            return (.rejected, "the client refused rangetap's certificate\(said). \(trustHint(caDirectory))")
        }
        if let tls = error as? TLSHandlerError, tls == .uncleanShutdown {
            return (
                .rejected,
                "the client closed the connection during the TLS handshake: it may not trust rangetap's CA, or pin the server's certificate. \(trustHint(caDirectory))"
            )
        }
        let notTLS = [
            "WRONG_VERSION_NUMBER", "HTTP_REQUEST", "UNSUPPORTED_PROTOCOL", "NO_SHARED_CIPHER", "NO_SHARED_GROUP",
            "NO_APPLICATION_PROTOCOL",
        ]
        if certificateSent && !notTLS.contains(where: { upper.contains($0) }) {
            return (
                .rejected,
                "the client ended the TLS handshake after receiving rangetap's certificate\(said): most likely it does not trust rangetap's CA. \(trustHint(caDirectory))"
            )
        }
        return (
            .failed,
            "TLS handshake with the client failed\(said.isEmpty ? ": " + TerminalText.escapingControls(String(text.prefix(200))) : said)"
        )
    }

    /// What to do about a client that does not accept the minted certificate.
    static func trustHint(_ caDirectory: String?) -> String {
        let where_ = caDirectory.map { " (\($0)/\(CertificateAuthority.certificateFileName))" } ?? ""
        return
            "Make the client trust rangetap's CA\(where_): see `rangetap ca info`; for a client that pins certificates, pass --no-intercept HOST."
    }

}

@available(*, unavailable)
extension TLSSessionHandler: Sendable {}
