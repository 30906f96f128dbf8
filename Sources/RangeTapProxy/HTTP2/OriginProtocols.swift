import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import RangeTapCore
import Synchronization

/// Whether an https origin speaks HTTP/2, learned before rangetap answers a client's CONNECT, so
/// the client is offered `h2` only when it would have got it from the origin itself: one TLS
/// handshake to the origin offering `h2` and `http/1.1` by ALPN, then closed; the answer is kept
/// per `host:port` for the life of the recording. Failures (the origin unreachable, a timeout)
/// count as "no", are not kept, and the client's own request then reports the real problem.
final class OriginProtocols: Sendable {
    /// How long the handshake may take before the answer is "no".
    static let timeout = TimeAmount.seconds(3)

    private let known = Mutex<[String: Bool]>([:])
    private let context: NIOSSLContext?

    init() {
        var configuration = TLSConfiguration.makeClientConfiguration()
        // Only ALPN is wanted here: libcurl verifies the origin on the real request.
        configuration.certificateVerification = .none
        configuration.applicationProtocols = ["h2", "http/1.1"]
        context = try? NIOSSLContext(configuration: configuration)
    }

    /// The answer already learned for `host:port`, if any.
    func cached(host: String, port: Int) -> Bool? {
        known.withLock { $0["\(host):\(port)"] }
    }

    /// Whether `host:port` negotiates `h2`, from the cache or by a handshake on `loop`.
    func speaksHTTP2(host: String, port: Int, on loop: any EventLoop) -> EventLoopFuture<Bool> {
        if let answer = cached(host: host, port: port) { return loop.makeSucceededFuture(answer) }
        guard let context else { return loop.makeSucceededFuture(false) }
        let promise = loop.makePromise(of: Bool.self)
        let serverName = IPAddressLiteral(host) != nil ? nil : host
        ClientBootstrap(group: loop)
            .connectTimeout(Self.timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    try channel.pipeline.syncOperations.addHandler(ALPNAnswer(promise: promise))
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    promise.fail(error)
                case .success(let channel):
                    loop.scheduleTask(in: Self.timeout) { channel.close(promise: nil) }
                    promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                }
            }
        return promise.futureResult
            .map { [self] h2 in
                known.withLock { $0["\(host):\(port)"] = h2 }
                return h2
            }
            .recover { _ in false }
    }
}

/// Completes a promise with the protocol the handshake settled on.
private final class ALPNAnswer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<Bool>
    private var answered = false

    init(promise: EventLoopPromise<Bool>) {
        self.promise = promise
    }

    private func answer(_ result: Result<Bool, any Error>) {
        guard !answered else { return }
        answered = true
        promise.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = tls {
            answer(.success(negotiated == "h2"))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        answer(.failure(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        answer(.failure(ChannelError.ioOnClosedChannel))
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension ALPNAnswer: Sendable {}
