import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore
import RangeTapCurl
import RangeTapTLS

/// One client connection: decodes requests, starts an ``Exchange`` per request, feeds each
/// exchange's ``ExchangeStateMachine`` what the client socket and the upstream transfer report,
/// carries out its actions and records what it settles. Requests on a connection are served
/// one at a time in order (`HTTPServerPipelineHandler` holds pipelined ones back); an exchange
/// whose response was written stays with its machine until the client acknowledged every
/// byte or closed, and one whose client left stays until its upstream transfer stopped.
final class ProxyHandler: ChannelInboundHandler, RemovableChannelHandler, ClientWriter {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private struct Pending {
        var head: HTTPRequestHead
        var t: CaptureTime
        var exchange: Int
        var url: String
        /// The head's lines as received (request line first), when the raw tap had them.
        var raw: [HeaderLine]?
    }

    /// A request body on its way to the origin as it arrives.
    private struct Upload {
        var exchange: Int
        var body: RequestBody
        /// The `Content-Length` the client declared (nil: chunked).
        var declared: Int64?
    }

    /// Granularity of the client-side delivery count.
    static let deliverySlice = 32 * 1024

    private let shared: RecordingContext
    private let session: ClientSession
    private let tunnels: TunnelStarter
    private let wire: ClientWire
    private let headSlot: ClientHeadSlot
    private let rawHeads: RawRequestHeads
    /// The raw lines of the request head being handled.
    private var currentRaw: [HeaderLine]?
    /// Exchanges not settled yet, by id: the one being answered, those waiting for the client
    /// to acknowledge their last bytes, and those waiting for an aborted transfer to stop.
    private var exchanges: [Int: ExchangeDriver] = [:]
    private var settleDelay: TimeAmount = .milliseconds(1)
    /// The next check of ``exchanges`` waiting for acknowledgements, while any waits.
    private var settleCheck: Scheduled<Void>?
    /// Set when a request body is being thrown away (refused before it was read).
    private var discardingBody = false
    private var connectionID = 0
    private var requests = 0
    private var sendBuffer: Int?
    private var pending: Pending?
    /// A request whose body is announced and not begun: it goes to the origin with the body's
    /// first bytes (or its end), so a framing the decoder refuses at the first chunk never
    /// reaches the origin at all.
    private var awaitingBody: (pending: Pending, declared: Int64?)?
    /// The request body being streamed to the origin, until the client's last byte of it.
    private var uploading: Upload?
    /// Whether reading the client is stopped because its body waits for the origin.
    private var clientHeld = false
    private var closedByProxy = false
    private var context: ChannelHandlerContext?
    /// Completion of the last response bytes written (a fault that cuts waits for it).
    private var lastWrite: EventLoopFuture<Void>?
    /// Whether a flush is queued on the event loop (``flushAfterQueuedTasks(_:)``).
    private var flushQueued = false
    /// How deep the handler is in writing a round of body bytes. A write that fails (the
    /// client's reset) makes NIO close the channel from inside the flush, before the round's
    /// bytes are in the exchange's delivery map: the close waits for the round to be noted.
    private var bodyWriteDepth = 0
    /// Set when the channel went inactive while a round was being written.
    private var inactiveWhileWriting = false
    /// `--idle-timeout`: closes the connection once nothing was in flight that long.
    private var idleTimer: ActivityTimer?
    /// `--body-timeout`: answers 408 once the request body being read received nothing that long.
    private var bodyTimer: ActivityTimer?

    init(
        context shared: RecordingContext, tunnels: TunnelStarter, wire: ClientWire, headSlot: ClientHeadSlot,
        rawHeads: RawRequestHeads, session: ClientSession = .plain
    ) {
        self.rawHeads = rawHeads
        self.session = session
        self.shared = shared
        self.tunnels = tunnels
        self.wire = wire
        self.headSlot = headSlot
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // The context holds this handler: keeping it would keep every closed connection alive.
        self.context = nil
        stopTimers()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if let inherited = session.inherited {
            // Added inside an intercepted tunnel: the connection is already open and counted.
            connectionID = inherited.connection
            requests = inherited.requests
            sendBuffer = inherited.sendBuffer
            startIdleTimer(context: context)
        }
    }

    /// The connection's id, its request count and send buffer, for the handler that carries on
    /// its requests inside an intercepted tunnel.
    var inheritance: ClientSession.Inherited {
        ClientSession.Inherited(connection: connectionID, requests: requests, sendBuffer: sendBuffer)
    }

    func channelActive(context: ChannelHandlerContext) {
        connectionID = shared.nextConnectionID()
        // A channel that is no socket (an `EmbeddedChannel` in the handler tests) has no send buffer.
        sendBuffer =
            wire.unavailable
            ? nil
            : (try? context.channel.syncOptions?.getOption(ChannelOptions.socketOption(.so_sndbuf))).flatMap { $0 }
        let peer = context.channel.remoteAddress.map(Self.describe) ?? "?"
        shared.writer.record(
            .connectionOpen(
                ConnectionOpenEvent(t: shared.clock.now(), connection: connectionID, peer: peer, sendBuffer: sendBuffer)
            ))
        startIdleTimer(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        guard bodyWriteDepth == 0 else {
            inactiveWhileWriting = true
            return
        }
        connectionClosed(context: context)
    }

    /// The client connection is gone: settles its exchanges by what the client acknowledged,
    /// records the close and passes it on.
    private func connectionClosed(context: ChannelHandlerContext) {
        stopTimers()
        let now = shared.clock.now()
        for id in exchanges.keys.sorted() {
            guard let driver = exchanges[id] else { continue }
            if driver.machine.isResponseEnded && closedByProxy {
                // rangetap closed after the last byte (HTTP/1.0, Connection: close): the kernel delivers the rest.
                driver.clientReceivedAll(
                    ClientOutcome(
                        t: now, delivered: driver.wireMap.total, measure: .complete, gone: false, sendBuffer: sendBuffer
                    ))
            } else {
                let (delivered, measure) = measuredDelivery(driver.wireMap, fallback: driver.machine.bytesDelivered)
                driver.clientClosed(
                    ClientOutcome(t: now, delivered: delivered, measure: measure, gone: true, sendBuffer: sendBuffer))
            }
        }
        shared.writer.record(
            .connectionClose(
                ConnectionCloseEvent(
                    t: shared.clock.now(), connection: connectionID, by: closedByProxy ? .proxy : .client,
                    requests: requests)))
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        idleTimer?.touch()
        switch unwrapInboundIn(data) {
        case .head(let head):
            discardingBody = false
            requests += 1
            // A client that sends its next request has acknowledged the bytes before it (the
            // request's segments carry the ACK): settle what waited for that now, not at the
            // next timed check.
            if settleCheck != nil { checkSettling() }
            currentRaw = rawHeads.take().map(HeaderForwarding.rawLines)
            if session.origin == nil, let credentials = shared.configuration.proxyCredentials,
                !credentials.accepts(head.headers.first(name: "proxy-authorization"))
            {
                // --proxy-auth: every request on the listener (a CONNECT for its whole tunnel)
                // shows the credentials; the CA page too is only for clients the proxy accepts.
                refuseUnauthenticated(head, context: context)
                return
            }
            if session.origin == nil, LinkControlRequest.isReservedHost(head) {
                // `http://rangetap.invalid/`: the CA page, not an exchange, not recorded. Inside a
                // tunnel the host is the tunnel's origin's business.
                discardingBody = true
                let answer = CAPage.answer(
                    method: head.method.rawValue, path: String(URLParts(head.uri).path),
                    authority: shared.intercept?.leaves.authority, proxy: reachedAddress(context))
                respond(answer, head: head, context: context)
                return
            }
            let t = shared.clock.now()
            let id = shared.nextExchangeID()
            if head.method == .CONNECT {
                recordRequest(head, t: t, exchange: id, url: nil)
                if session.origin != nil {
                    let message =
                        "CONNECT inside an intercepted tunnel (to \(session.origin ?? "?")) is not supported; connect to the proxy directly"
                    shared.writer.record(
                        .error(
                            ErrorEvent(
                                t: shared.clock.now(), exchange: id, connection: connectionID, kind: .refused,
                                message: message, status: 405)))
                    respond(.methodNotAllowed, message: message, keepAlive: false, context: context)
                    return
                }
                if let only = shared.confinedTo {
                    let message = RequestTarget.confinedMessage(target: "CONNECT \(head.uri)", upstream: only)
                    shared.writer.record(
                        .error(
                            ErrorEvent(
                                t: shared.clock.now(), exchange: id, connection: connectionID, kind: .refused,
                                message: message, status: 403)))
                    respond(.forbidden, message: message, keepAlive: false, context: context)
                    return
                }
                tunnels.start(head: head, exchange: id, connection: connectionID, handler: self, context: context)
                return
            }
            switch shared.resolve(head.uri, in: session) {
            case .success(let url):
                let p = Pending(head: head, t: t, exchange: id, url: url, raw: currentRaw)
                let chunked = head.headers.contains(name: "transfer-encoding")
                let declared =
                    chunked
                    ? nil : head.headers.first(name: "content-length").flatMap { Int64($0.trimmingHTTPWhitespace()) }
                guard chunked || (declared ?? 0) > 0 else {
                    // No body: the request goes once its end is read.
                    pending = p
                    return
                }
                if head.version == .http1_1,
                    HeaderForwarding.connectionTokens(head.headers[canonicalForm: "expect"]).contains("100-continue")
                {
                    // rangetap sends the body on as it comes: ask for it now rather than leave
                    // the client waiting out its own timer (RFC 9110 §10.1.1).
                    headSlot.next = ClientHead(
                        status: 100, bytes: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), framing: .noBody, changes: [])
                    context.writeAndFlush(
                        wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
                }
                awaitingBody = (p, declared)
                startBodyTimer(exchange: id, context: context)
            case .failure(let refusal):
                recordRequest(head, t: t, exchange: id, url: nil)
                shared.writer.record(
                    .error(
                        ErrorEvent(
                            t: shared.clock.now(), exchange: id, connection: connectionID, kind: .refused,
                            message: refusal.message, status: Int(refusal.status.code))))
                respond(refusal.status, message: refusal.message, keepAlive: head.isKeepAlive, context: context)
            }
        case .body(let buffer):
            guard !discardingBody else { return }
            bodyTimer?.touch()
            if let (p, declared) = awaitingBody {
                awaitingBody = nil
                startUpload(p, declared: declared, context: context)
            }
            guard let upload = uploading else { return }
            if !upload.body.append(buffer) {
                // libcurl has not taken what is queued: the client waits (TCP holds it back).
                clientHeld = true
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            }
        case .end:
            bodyTimer?.stop()
            if let (p, declared) = awaitingBody {
                // A chunked body with no chunks.
                awaitingBody = nil
                startUpload(p, declared: declared, context: context)
            }
            if let upload = uploading {
                uploading = nil
                upload.body.finish()
                return
            }
            if discardingBody {
                discardingBody = false
                return
            }
            guard let p = pending else { return }
            pending = nil
            recordRequest(p.head, t: p.t, exchange: p.exchange, url: p.url)
            startExchange(p, context: context)
        }
    }

    /// Starts the exchange of a request with a body at its head: the body goes to the origin as
    /// it arrives (``RequestBody``).
    private func startUpload(_ p: Pending, declared: Int64?, context: ChannelHandlerContext) {
        recordRequest(p.head, t: p.t, exchange: p.exchange, url: p.url)
        let loop = context.eventLoop
        let me = NIOLoopBound(self, eventLoop: loop)
        let body = RequestBody(budget: shared.bodyBudget) { loop.execute { me.value.readClientAgain() } }
        guard startExchange(p, body: body, length: declared, context: context) else {
            // Answered without the origin (a `status=` fault): the body is read and dropped.
            discardingBody = true
            return
        }
        uploading = Upload(exchange: p.exchange, body: body, declared: declared)
    }

    /// libcurl took the queued body down to its low mark (or let go of it): read the client again.
    private func readClientAgain() {
        guard clientHeld, let context else { return }
        clientHeld = false
        context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let timeout = event as? HeadTimeout {
            // RawRequestTap answered 408 and closes.
            closedByProxy = true
            shared.writer.record(
                .error(
                    ErrorEvent(
                        t: shared.clock.now(), exchange: nil, connection: connectionID, kind: .headTimeout,
                        message: timeout.message, status: 408)))
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A client resetting or abandoning its socket is how players cancel: channelInactive
        // records the cancel, so this is not an error.
        if Self.isHangUp(error) {
            context.close(promise: nil)
            return
        }
        // The request body rangetap stopped reading (refused, or timed out) ends with the
        // connection rangetap closed: already recorded, not the client leaving.
        if error is ClientLeftMidRequest, discardingBody, closedByProxy {
            context.close(promise: nil)
            return
        }
        // ClientProtocolErrorHandler has already answered a malformed request (400, or 431).
        let problem = ClientRequestError.describing(error)
        // A request whose head arrived and whose body did not: its request event, and the error
        // on its exchange, so the capture shows what the client was sending when it left.
        var exchange: Int?
        if error is ClientLeftMidRequest, let (p, _) = awaitingBody {
            // Gone before its body began: recorded, never forwarded.
            awaitingBody = nil
            recordRequest(p.head, t: p.t, exchange: p.exchange, url: p.url)
            exchange = p.exchange
        }
        var described: any Error = error
        if var left = error as? ClientLeftMidRequest, let upload = uploading {
            // Its request is recorded; its exchange is stopped by the close.
            uploading = nil
            exchange = upload.exchange
            left.forwarded = true
            described = left
        }
        shared.writer.record(
            .error(
                ErrorEvent(
                    t: shared.clock.now(), exchange: exchange, connection: connectionID,
                    kind: problem != nil ? .badRequest : .client,
                    message: problem.map(\.description) ?? "client connection error: \(described)",
                    status: problem.map { Int($0.status.code) })))
        // A client that left mid-request closed the connection itself.
        closedByProxy = !(error is ClientLeftMidRequest)
        context.close(promise: nil)
    }

    // MARK: Exchanges

    /// Starts the exchange of `p`, its body (when it has one) streamed from `body`, `length`
    /// bytes when declared. False when a `status=` fault answered it without the origin.
    @discardableResult
    private func startExchange(
        _ p: Pending, body: RequestBody? = nil, length: Int64? = nil, context: ChannelHandlerContext
    ) -> Bool {
        let hasRange = p.head.headers.contains(name: "range")
        let plan = shared.faultPlan(url: p.url, method: p.head.method.rawValue, hasRange: hasRange)
        if let plan, let status = plan.status {
            answerInjected(
                status: status.code, rule: status.rule, exchange: p.exchange,
                keepAlive: p.head.isKeepAlive && body == nil, context: context)
            return false
        }
        let te = HeaderForwarding.connectionTokens(p.head.headers[canonicalForm: "te"])
        let machine = ExchangeStateMachine(
            clientVersion: p.head.version, clientKeepAlive: p.head.isKeepAlive, method: p.head.method.rawValue,
            clientAcceptsTrailers: te.contains("trailers"), exchange: p.exchange, connection: connectionID)
        let driver = ExchangeDriver(
            id: p.exchange, connection: connectionID, machine: machine, plan: plan,
            mapped: shared.mapping(url: p.url, method: p.head.method.rawValue, hasRange: hasRange), shared: shared,
            loop: context.eventLoop, writer: self)
        exchanges[p.exchange] = driver
        var request = CurlRequest(
            url: p.url, method: p.head.method.rawValue,
            headers: p.raw.map {
                HeaderForwarding.upstreamRequestLines(
                    raw: Array($0.dropFirst()), authority: RequestTarget.authority(of: p.url))
            } ?? HeaderForwarding.upstreamRequestLines(p.head.headers),
            body: body == nil && (p.head.method == .POST || p.head.method == .PUT) ? [] : nil,
            insecure: shared.configuration.insecureUpstream, bufferSize: shared.upstreamReadSize())
        request.bodySource = body
        request.bodyLength = length
        // The raw lines hold the client's bytes one per character: they go out as they came.
        request.headersAreLatin1 = p.raw != nil
        request.idleTimeoutMs = shared.configuration.upstreamIdleTimeoutMs
        request.caFile = shared.configuration.upstreamCACertificates
        driver.start(request, range: p.head.headers["range"])
        return true
    }

    /// A `reset-after` or `truncate-after` rule ended the response here (``ExchangeDriver``
    /// recorded it and stopped the upstream transfer): the connection is reset (RST) or closed
    /// (FIN) once the bytes before the cut are written.
    func cut(reset: Bool, for driver: ExchangeDriver) {
        guard let context else { return }
        closedByProxy = true
        context.flush()
        let written = lastWrite ?? context.eventLoop.makeSucceededVoidFuture()
        let channel = context.channel
        let below = NIOLoopBound(
            session.tls ? try? channel.pipeline.syncOperations.context(handlerType: TLSHandler.self) : nil,
            eventLoop: context.eventLoop)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.whenComplete { _ in
            if reset {
                let deadline = NIODeadline.now() + Self.resetAckWait
                loopBound.value.resetOnceAcknowledged(
                    channel, below: below, deadline: deadline, delay: .microseconds(500))
            } else {
                channel.close(promise: nil)
            }
        }
    }

    /// How long a `reset-after` cut waits for the client to acknowledge the bytes before it.
    static let resetAckWait: TimeAmount = .seconds(5)

    /// Resets the connection once the client's TCP acknowledged every byte written to it, or at
    /// `deadline` (a client that stopped reading). A reset (SO_LINGER 0) throws away what the
    /// kernel has not sent yet: resetting as soon as the last write was handed to the kernel gave
    /// a client slower than the origin (curl decrypting TLS on a busy machine) 64 KiB, not the
    /// `reset-after` size.
    private func resetOnceAcknowledged(
        _ channel: any Channel, below tls: NIOLoopBound<ChannelHandlerContext?>, deadline: NIODeadline,
        delay: TimeAmount
    ) {
        wire.refresh(channel)
        let acked = wire.acked.map { $0.bytes >= wire.written } ?? false
        guard !acked, !wire.unavailable, channel.isActive, NIODeadline.now() < deadline else {
            // SO_LINGER 0: close sends RST. Under TLS the close starts below the TLS handler,
            // so no close_notify goes first.
            _ = (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            if let context = tls.value { context.close(promise: nil) } else { channel.close(promise: nil) }
            return
        }
        let loopBound = NIOLoopBound(self, eventLoop: channel.eventLoop)
        channel.eventLoop.scheduleTask(in: delay) {
            loopBound.value.resetOnceAcknowledged(
                channel, below: tls, deadline: deadline, delay: min(delay * 2, .milliseconds(20)))
        }
    }

    /// Answers a `status=` fault: rangetap's own response, the origin not asked.
    private func answerInjected(
        status code: Int, rule: String, exchange id: Int, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        let status = HTTPResponseStatus(statusCode: code)
        let body = "rangetap: \(code) \(status.reasonPhrase), injected by --fault '\(rule)'\n"
        shared.recordFault(
            exchange: id, rule: rule, action: "status", detail: "answered \(code) without asking the origin")
        var lines = [
            "HTTP/1.1 \(code) \(status.reasonPhrase)", "Content-Type: text/plain; charset=utf-8",
            "Content-Length: \(body.utf8.count)",
        ]
        if !keepAlive { lines.append("Connection: close") }
        let t = shared.clock.now()
        shared.writer.record(
            .response(
                ResponseEvent(
                    t: t, exchange: id, status: code, lines: (lines + [""]).map { HeaderLine(raw: $0 + "\r\n") },
                    reused: nil, upstreamPort: nil)))
        respond(status, message: body, keepAlive: keepAlive, context: context, prefixed: false)
        shared.writer.record(
            .end(
                EndEvent(
                    t: shared.clock.now(), exchange: id, bytes: 0, sha256: "", served: Int64(body.utf8.count))))
    }

    /// Flushes once the tasks already queued on the event loop have run (NIO runs them all before
    /// it polls again). A head is written this way: the body bytes the upstream thread posted
    /// with it are usually queued already, and their flush sends head and body in one `writev(2)`
    /// instead of two writes, each waking the client. A head alone goes out a task later.
    private func flushAfterQueuedTasks(_ context: ChannelHandlerContext) {
        guard !flushQueued else { return }
        flushQueued = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            handler.flushQueued = false
            handler.context?.flush()
        }
    }

    // MARK: ClientWriter

    func writeInterim(_ head: ClientHead, for driver: ExchangeDriver) {
        writeHead(head, for: driver)
    }

    func writeHead(_ head: ClientHead, for driver: ExchangeDriver) {
        guard let context else { return }
        // The encoder sends the exact bytes; NIO's pipelining handler sees the status.
        headSlot.next = head
        let status = HTTPResponseStatus(statusCode: head.status)
        var promise: EventLoopPromise<Void>?
        if driver.isFaulted {
            // A fault may record this head, or cut right after it.
            driver.writtenHead = head.bytes
            promise = context.eventLoop.makePromise()
            lastWrite = promise?.futureResult
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status))), promise: promise)
        flushAfterQueuedTasks(context)
    }

    func writeBody(_ buffer: ByteBuffer, last: Bool, for driver: ExchangeDriver) {
        // `last` is HTTP/2's: an HTTP/1.1 body ends by its framing.
        guard let context else {
            driver.writeCompleted(buffer.readableBytes, written: false)
            return
        }
        var buffer = buffer
        // Written in slices of the same storage (no copy), each with its own completion and
        // its place in the connection's byte stream noted, so the bytes the client's TCP
        // acknowledged map back to body bytes when it hangs up.
        let loopBound = NIOLoopBound(driver, eventLoop: context.eventLoop)
        bodyWriteDepth += 1
        // Only a fault that cuts the body waits for the last write.
        let faulted = driver.isFaulted
        let roundStart = wire.written
        let roundSize = buffer.readableBytes
        // A shaped link reports deliveries as the client's TCP acknowledges each write's
        // records, and a fault that cuts the body resets right after its last write: there a
        // TLS flush per slice keeps both as they are in the clear.
        let flushEachSlice = session.tls && (shared.shape != nil || faulted)
        while buffer.readableBytes > 0 {
            let slice = buffer.readSlice(length: min(buffer.readableBytes, Self.deliverySlice))!
            let n = slice.readableBytes
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { result in
                loopBound.value.writeCompleted(n, written: (try? result.get()) != nil)
            }
            let before = wire.written
            if faulted { lastWrite = promise.futureResult }
            context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: promise)
            if flushEachSlice {
                context.flush()
                driver.wireMap.note(encryptedFrom: before, to: wire.written, size: n)
            } else if !session.tls {
                driver.wireMap.note(before: before, after: wire.written, size: n)
            }
        }
        if !flushEachSlice { context.flush() }
        if session.tls && !flushEachSlice {
            // TLS encrypts on flush: one flush for the round puts all its records on the wire
            // in one write(2) (a flush per slice made one per 32 KiB: 33,741 writes per GiB),
            // and the span of encrypted bytes that carries the round is known. Records are
            // of one size, so a share of the span acknowledged is the same share of the round.
            driver.wireMap.note(encryptedFrom: roundStart, to: wire.written, size: roundSize)
        }
        bodyWriteDepth -= 1
        if bodyWriteDepth == 0 && inactiveWhileWriting {
            // NIO closed the channel inside a flush above; its bytes are noted now.
            inactiveWhileWriting = false
            connectionClosed(context: context)
        }
    }

    func writeEnd(close: Bool, trailers: [String], bodyEnded: Bool, for driver: ExchangeDriver) {
        guard let context else { return }
        headSlot.trailers = trailers
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if close {
            closedByProxy = true
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        } else {
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            written.whenSuccess { loopBound.value.checkSettling(restart: true) }
        }
    }

    func respond(_ status: HTTPResponseStatus, message: String, for driver: ExchangeDriver) {
        guard let context else { return }
        // A request body not read to its end leaves the connection out of step: it closes.
        let bodyRead = uploading?.exchange != driver.id && !discardingBody
        respond(status, message: message, keepAlive: driver.machine.clientKeepAlive && bodyRead, context: context)
    }

    func abandon(for driver: ExchangeDriver) {
        guard let context else { return }
        closedByProxy = true
        // What was written goes first (a head whose flush waits for the queued tasks, the body
        // bytes before the failure): a close fails writes that were never flushed.
        context.flush()
        context.close(promise: nil)
    }

    func describeCut(reset: Bool, forwarded: Int64, rule: String) -> String {
        "\(reset ? "reset the connection" : "closed the connection") after \(forwarded) body bytes"
    }

    func headAsWritten(for driver: ExchangeDriver) -> [HeaderLine]? {
        driver.writtenHead.map(FaultGate.lines(ofHead:))
    }

    func finished(_ driver: ExchangeDriver) {
        if exchanges[driver.id] === driver { exchanges[driver.id] = nil }
        idleTimer?.touch()
    }

    // MARK: Timeouts

    /// Whether nothing is in flight: no exchange unsettled, no request being read.
    private var isIdle: Bool {
        exchanges.isEmpty && pending == nil && awaitingBody == nil && uploading == nil && !rawHeads.inProgress
    }

    private func startIdleTimer(context: ChannelHandlerContext) {
        guard let limit = shared.configuration.idleTimeout, idleTimer == nil else { return }
        let timer = ActivityTimer(limit: limit, loop: context.eventLoop)
        idleTimer = timer
        timer.start(counts: { [weak self] in self?.isIdle ?? false }, expired: { [weak self] in self?.idleTimedOut() })
    }

    /// Nothing was in flight for `--idle-timeout`: the connection is closed (its `conn.close`
    /// says by the proxy), as servers close idle keep-alive connections.
    private func idleTimedOut() {
        idleTimer = nil
        guard let context, context.channel.isActive else { return }
        closedByProxy = true
        context.close(promise: nil)
    }

    private func startBodyTimer(exchange id: Int, context: ChannelHandlerContext) {
        guard let limit = shared.configuration.bodyTimeout else { return }
        bodyTimer?.stop()
        let timer = ActivityTimer(limit: limit, loop: context.eventLoop)
        bodyTimer = timer
        // Not while rangetap itself holds the client back (the origin is slow to take the body).
        timer.start(
            stopsWhenNot: true, counts: { [weak self] in self?.awaitsBody(of: id) ?? false },
            expired: { [weak self] in self?.bodyTimedOut(exchange: id, after: limit) })
    }

    /// Whether exchange `id` waits for its client's body (not for the origin to take it).
    private func awaitsBody(of id: Int) -> Bool {
        (awaitingBody?.pending.exchange == id || uploading?.exchange == id) && !clientHeld
    }

    /// The request body of exchange `id` received nothing for `--body-timeout`: 408 and a close.
    /// Before its first byte nothing was forwarded; after it the upstream transfer is stopped
    /// with the error, which answers 408 when no response head was written yet.
    private func bodyTimedOut(exchange id: Int, after limit: TimeAmount) {
        bodyTimer = nil
        if let (p, declared) = awaitingBody, p.exchange == id, let context {
            awaitingBody = nil
            discardingBody = true
            recordRequest(p.head, t: p.t, exchange: p.exchange, url: p.url)
            let message = ActivityTimer.bodyTimeoutMessage(
                limit: limit, got: 0, declared: declared.map(String.init),
                then: "rangetap closed the connection and forwarded nothing")
            shared.writer.record(
                .error(
                    ErrorEvent(
                        t: shared.clock.now(), exchange: id, connection: connectionID, kind: .bodyTimeout,
                        message: message, status: 408)))
            respond(.requestTimeout, message: message, keepAlive: false, context: context)
            return
        }
        guard let upload = uploading, upload.exchange == id else { return }
        uploading = nil
        discardingBody = true
        let message = ActivityTimer.bodyTimeoutMessage(
            limit: limit, got: Int(upload.body.bytesAppended), declared: upload.declared.map(String.init),
            then: "rangetap stopped the request to the origin and closed the connection")
        let failure = ErrorEvent(
            t: shared.clock.now(), exchange: id, connection: connectionID, kind: .bodyTimeout, message: message,
            status: 408)
        if let driver = exchanges[id] {
            driver.exchange.stop(failure)
        } else if let context {
            // The exchange settled already (the origin answered early): only the connection is left.
            shared.writer.record(.error(failure))
            closedByProxy = true
            context.close(promise: nil)
        }
    }

    private func stopTimers() {
        idleTimer?.stop()
        idleTimer = nil
        bodyTimer?.stop()
        bodyTimer = nil
    }

    // MARK: Delivery

    /// Body bytes of `map` the client's TCP acknowledged, by the best measure at hand.
    private func measuredDelivery(_ map: WireDeliveryMap, fallback: Int64) -> (Int64, DeliveryMeasure) {
        guard let acked = wire.acked else { return (fallback, .writes) }
        return (map.delivered(acked: acked.bytes), acked.atClose ? .tcpAcked : .tcpAckedAtLastWrite)
    }

    /// Settles exchanges whose every body byte the client acknowledged; checks again later
    /// (1 ms, doubling to 50 ms) while some are still in flight.
    private func checkSettling(restart: Bool = false) {
        guard let context else { return }
        if restart { settleDelay = .milliseconds(1) }
        wire.refresh(context.channel)
        let now = shared.clock.now()
        var waiting = false
        for id in exchanges.keys.sorted() {
            guard let driver = exchanges[id], driver.machine.isResponseEnded else { continue }
            let map = driver.wireMap
            let all = wire.unavailable || (wire.acked.map { map.delivered(acked: $0.bytes) >= map.total } ?? false)
            guard all else {
                waiting = true
                continue
            }
            driver.clientReceivedAll(
                ClientOutcome(
                    t: now, delivered: map.total, measure: wire.unavailable ? .writes : .complete, gone: false,
                    sendBuffer: sendBuffer))
        }
        guard waiting else {
            // Nothing left to wait for: a timed check would find nothing.
            settleCheck?.cancel()
            settleCheck = nil
            return
        }
        guard settleCheck == nil else { return }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let delay = settleDelay
        settleDelay = min(settleDelay * 2, .milliseconds(50))
        settleCheck = context.eventLoop.scheduleTask(in: delay) {
            loopBound.value.settleCheck = nil
            loopBound.value.checkSettling()
        }
    }

    // MARK: Helpers

    private func recordRequest(_ head: HTTPRequestHead, t: CaptureTime, exchange: Int, url: String?) {
        // The lines as received when the tap had them; else as the decoder gave them.
        var lines =
            currentRaw.map { Array($0.dropFirst()) } ?? HeaderForwarding.captureLines(head.headers, keepSecrets: true)
        if !shared.configuration.keepSecrets { lines = lines.redactingSecrets() }
        shared.writer.record(
            .request(
                RequestEvent(
                    t: t, exchange: exchange, connection: connectionID, method: head.method.rawValue,
                    target: URLRedaction.redactingUserinfo(head.uri, if: !shared.configuration.keepSecrets),
                    version: "HTTP/\(head.version.major).\(head.version.minor)",
                    url: url.map { URLRedaction.redactingUserinfo($0, if: !shared.configuration.keepSecrets) },
                    headers: lines)))
    }

    /// The proxy's own response (an error it generates), plain text.
    /// Answers 407 with a Basic challenge, recorded as a refused exchange. The request's body,
    /// if any, is read and dropped, so the client can send it again with credentials on the same
    /// connection.
    private func refuseUnauthenticated(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        discardingBody = true
        let t = shared.clock.now()
        let id = shared.nextExchangeID()
        recordRequest(head, t: t, exchange: id, url: HTTPScheme.isHTTP(head.uri) ? head.uri : nil)
        let message =
            head.headers.contains(name: "proxy-authorization")
            ? "wrong proxy credentials in Proxy-Authorization (this proxy runs with --proxy-auth)"
            : "this proxy asks for credentials: Proxy-Authorization: Basic (curl: -x http://USER:PASS@HOST:PORT)"
        shared.writer.record(
            .error(
                ErrorEvent(
                    t: shared.clock.now(), exchange: id, connection: connectionID, kind: .refused, message: message,
                    status: 407)))
        respond(
            .proxyAuthenticationRequired, message: message, keepAlive: head.isKeepAlive, context: context,
            extraHeaders: [("Proxy-Authenticate", "Basic realm=\"rangetap\", charset=\"UTF-8\"")])
    }

    /// The address this client connected to, as `HOST:PORT` for a URL (what the CA page tells a
    /// device to set as its proxy).
    private func reachedAddress(_ context: ChannelHandlerContext) -> String {
        guard let local = context.channel.localAddress, let ip = local.ipAddress, let port = local.port else {
            return
                "\(URLAuthority.hostForURL(shared.configuration.listenHost)):\(shared.boundPort.load(ordering: .relaxed))"
        }
        return "\(URLAuthority.hostForURL(ip)):\(port)"
    }

    /// Sends a page of rangetap's own (``CAPage``): its bytes for a GET, their length for a HEAD.
    private func respond(_ answer: CAPage.Answer, head: HTTPRequestHead, context: ChannelHandlerContext) {
        let keepAlive = head.isKeepAlive
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: answer.contentType)
        headers.add(name: "Content-Length", value: String(answer.body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if let name = answer.fileName {
            headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(name)\"")
        }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: answer.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        if head.method != .HEAD {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            closedByProxy = true
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func respond(
        _ status: HTTPResponseStatus, message: String, keepAlive: Bool, context: ChannelHandlerContext,
        prefixed: Bool = true, extraHeaders: [(String, String)] = []
    ) {
        var body = context.channel.allocator.buffer(capacity: message.utf8.count + 12)
        body.writeString(prefixed ? "rangetap: \(message)\n" : message)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            closedByProxy = true
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Whether `error` is the client hanging up (a reset, a broken pipe, a timeout, or a TLS
    /// client closing without close_notify) rather than something it sent.
    static func isHangUp(_ error: any Error) -> Bool {
        if let io = error as? IOError, [ECONNRESET, EPIPE, ETIMEDOUT].contains(io.errnoCode) { return true }
        if let tls = error as? TLSHandlerError, tls == .uncleanShutdown { return true }
        return false
    }

    static func describe(_ address: SocketAddress) -> String {
        if let ip = address.ipAddress, let port = address.port { return "\(ip):\(port)" }
        return "\(address)"
    }
}

@available(*, unavailable)
extension ProxyHandler: Sendable {}

extension CaptureEvent {
    /// The event with `now` as its time when the state machine, which has no clock, left it 0.
    func stamped(_ now: CaptureTime) -> CaptureEvent {
        if case .error(var e) = self, e.t == 0 {
            e.t = now
            return .error(e)
        }
        return self
    }
}
