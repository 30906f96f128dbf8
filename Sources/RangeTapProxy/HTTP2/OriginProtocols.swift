import NIOCore
import NIOPosix
import NIOTLS
import RangeTapCore
import RangeTapTLS
import Synchronization

/// What one TLS handshake with an https origin shows before rangetap answers a client's
/// CONNECT: whether it speaks HTTP/2 (the client is offered `h2` only when it would have got it
/// from the origin itself), and whether its certificate verifies as libcurl will verify it (the
/// system's CAs, `--upstream-cacert`, the host's name; not with `--insecure`). An origin that
/// does not verify gets no tunnel: rangetap will not present a valid certificate of its own for
/// it (the CONNECT is answered 502 instead, docs/https.md). A verified answer is kept per
/// `host:port` for the life of the recording; failures (unreachable, a timeout, a bad
/// certificate) are not kept, and an unreachable origin is reported by the client's own request.
final class OriginProtocols: Sendable {
    /// How long the handshake may take before the answer is "no".
    static let timeout = TimeAmount.seconds(3)

    /// What the handshake showed.
    struct Probe: Equatable, Sendable {
        /// Whether the origin negotiated `h2`.
        var http2: Bool
        /// Why the origin's certificate failed verification, when it did.
        var unverified: String?
    }

    private let known = Mutex<[String: Bool]>([:])
    private let context: TLSContext?
    /// Whether the probe verifies the origin (not under `--insecure`).
    let verifies: Bool

    /// A prober that verifies the origin unless `insecure`, trusting the system's CAs and those
    /// in `extraCAFile` (`--upstream-cacert`).
    init(insecure: Bool = false, extraCAFile: String? = nil) {
        verifies = !insecure
        context = try? TLSContext.client(
            verify: !insecure, extraCAFile: insecure ? nil : extraCAFile, applicationProtocols: ["h2", "http/1.1"])
    }

    /// The answer already learned for `host:port`, if any.
    func cached(host: String, port: Int) -> Bool? {
        known.withLock { $0["\(host):\(port)"] }
    }

    /// Whether `host:port` negotiates `h2`, and whether it verifies: from the cache or by a
    /// handshake on `loop`.
    func probe(host: String, port: Int, on loop: any EventLoop) -> EventLoopFuture<Probe> {
        if let answer = cached(host: host, port: port) { return loop.makeSucceededFuture(Probe(http2: answer)) }
        guard let context else { return loop.makeSucceededFuture(Probe(http2: false)) }
        let promise = loop.makePromise(of: Bool.self)
        ClientBootstrap(group: loop)
            .connectTimeout(Self.timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        TLSHandler(context: context, role: .client(serverName: host)))
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
        let verifies = self.verifies
        return promise.futureResult
            .map { [self] h2 in
                known.withLock { $0["\(host):\(port)"] = h2 }
                return Probe(http2: h2)
            }
            .recover { error in
                guard verifies, let reason = Self.verificationFailure(error) else { return Probe(http2: false) }
                return Probe(http2: false, unverified: reason)
            }
    }

    /// What a failed handshake says, when it failed on the origin's certificate (its chain, or
    /// the name in it); nil for any other failure.
    static func verificationFailure(_ error: any Error) -> String? {
        guard case .handshakeFailed(let reasons, let verification, let nameMismatch)? = error as? TLSHandlerError,
            let verification
        else { return nil }
        if nameMismatch { return "its certificate does not name it (\(verification))" }
        let codes = reasons.isEmpty ? "" : ", " + reasons.joined(separator: ", ")
        return
            "its certificate chain does not verify against the system's CAs or --upstream-cacert (\(verification)\(codes))"
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
