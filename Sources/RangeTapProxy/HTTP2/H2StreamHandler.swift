import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import RangeTapCore
import RangeTapCurl

/// One HTTP/2 stream of a client connection, which carries one exchange: the stream's request
/// becomes an ``Exchange`` and an ``ExchangeStateMachine`` (the same as for an HTTP/1.1
/// request), whose actions this handler carries out as HTTP/2 frames. A client's `RST_STREAM`
/// is a cancel of this stream only; its `delivered` is, as over HTTP/1.1, the body bytes whose
/// DATA frames the client's TCP acknowledged (``System/tcpBytesAcknowledged(_:)``), and what it granted back with
/// `WINDOW_UPDATE` is kept beside it as `consumed`.
final class H2StreamHandler: ChannelInboundHandler, ClientWriter {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private struct Pending {
        var request: H2Request
        /// The request target as resolved (path, or the absolute URL the pseudo-headers spell).
        var target: String
        var t: CaptureTime
        var exchange: Int
        var url: String
    }

    /// A request body on its way to the origin as it arrives.
    private struct Upload {
        var exchange: Int
        var body: RequestBody
        /// The `content-length` the client declared.
        var declared: Int64?
        /// DATA bytes received.
        var got: Int64 = 0
    }

    private let shared: RecordingContext
    private let state: H2ConnectionState
    private let session: ClientSession
    private var context: ChannelHandlerContext?
    private var stream = 0
    private var pending: Pending?
    /// Set once the request was answered by rangetap itself, or its body is being refused.
    private var answered = false
    /// The exchange this stream carries, until it settled.
    private var driver: ExchangeDriver?
    /// Body bytes put in DATA frames.
    private var sent: Int64 = 0
    private var loop: (any EventLoop)?
    /// The connection's channel (the stream channel's parent).
    private var connection: (any Channel)?
    /// The socket's written count when the END_STREAM frame reached it.
    private var endOffset: Int64 = 0
    private var ackDelay: TimeAmount = .milliseconds(1)
    /// The write of the DATA frame that carried END_STREAM, when the body ended the stream.
    private var lastDataWrite: EventLoopFuture<Void>?
    /// The client's `RST_STREAM` error code, when it reset the stream.
    private var reset: HTTP2ErrorCode?
    /// `--body-timeout`: answers 408 once the request body received nothing that long.
    private var bodyTimer: ActivityTimer?
    /// The request body being streamed to the origin, until its END_STREAM (or its failure).
    private var upload: Upload?
    /// Whether the client's side of the stream is open (its END_STREAM not yet received).
    private var requestOpen = false
    /// Whether reading the stream is stopped because its body waits for the origin.
    private var clientHeld = false

    init(shared: RecordingContext, state: H2ConnectionState, session: ClientSession) {
        self.shared = shared
        self.state = state
        self.session = session
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        loop = context.eventLoop
        connection = context.channel.parent
        stream = ((try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? nil)?.number ?? 0
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        bodyTimer?.stop()
        bodyTimer = nil
    }

    // MARK: The request

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            if pending == nil && driver == nil && !answered {
                requestOpen = !headers.endStream
                received(H2Request(headers.headers), context: context)
                // A body follows: the request goes to the origin with its first DATA.
                if !headers.endStream, pending != nil { startBodyTimer(context: context) }
            }
            if headers.endStream { requestEnded(context: context) }
        case .data(let frame):
            if frame.endStream { requestOpen = false }
            guard !answered, case .byteBuffer(let buffer) = frame.data else {
                if frame.endStream { requestEnded(context: context) }
                return
            }
            bodyTimer?.touch()
            if let p = pending {
                let n = buffer.readableBytes
                if let declared = p.request.contentLength, n > declared || (frame.endStream && n != declared) {
                    // Known before anything went to the origin: refused, nothing forwarded.
                    pending = nil
                    recordRequest(p.request, t: p.t, exchange: p.exchange, target: p.target, url: p.url)
                    refuse(
                        exchange: p.exchange, status: .badRequest,
                        message:
                            "content-length \(declared) but the request's DATA frames carried \(frame.endStream ? "" : "more than ")\(n) bytes; nothing was forwarded",
                        context: context)
                    return
                }
                pending = nil
                startUpload(p, context: context)
            }
            guard var up = upload else {
                if frame.endStream { requestEnded(context: context) }
                return
            }
            up.got += Int64(buffer.readableBytes)
            upload = up
            if let declared = up.declared, up.got > declared {
                malformed(
                    "the request's DATA frames carried more than its content-length \(declared) (\(up.got) bytes)")
                return
            }
            if !up.body.append(buffer) {
                // libcurl has not taken what is queued: the stream's window is not granted back.
                clientHeld = true
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            }
            if frame.endStream { requestEnded(context: context) }
        default:
            break
        }
    }

    private func received(_ request: H2Request, context: ChannelHandlerContext) {
        state.requests += 1
        let t = shared.clock.now()
        let id = shared.nextExchangeID()
        let originKnown = session.origin != nil || shared.configuration.upstream != nil
        let target = request.target(originKnown: originKnown)
        if let authority = request.authority, !H2Request.isAuthority(authority) {
            // `host/evil?` would change the path the origin sees (RFC 9113 §8.3.1: a malformed request).
            recordRequest(request, t: t, exchange: id, target: target, url: nil)
            refuse(
                exchange: id, status: .badRequest,
                message:
                    ":authority \"\(TerminalText.escapingControls(String(authority.prefix(200))))\" is not host[:port]",
                context: context)
            return
        }
        if let name = request.fieldNotAsSent {
            // NIOHPACK has already replaced the bytes: refused rather than changed on the way.
            recordRequest(request, t: t, exchange: id, target: target, url: nil)
            refuse(
                exchange: id, status: .badRequest,
                message:
                    "the field \(name) holds bytes that are not UTF-8 (or U+FFFD itself); rangetap's HTTP/2 decoder reads field values as UTF-8 and cannot pass such bytes on as sent, so nothing was forwarded (HTTP/1.1 passes them unchanged)",
                context: context)
            return
        }
        if request.method == "CONNECT" {
            recordRequest(request, t: t, exchange: id, target: target, url: nil)
            refuse(
                exchange: id, status: .methodNotAllowed,
                message: "CONNECT over HTTP/2 is not supported; send CONNECT on an HTTP/1.1 connection to the proxy",
                context: context)
            return
        }
        switch shared.resolve(target, in: session) {
        case .success(let url):
            pending = Pending(request: request, target: target, t: t, exchange: id, url: url)
        case .failure(let refusal):
            recordRequest(request, t: t, exchange: id, target: target, url: nil)
            refuse(exchange: id, status: refusal.status, message: refusal.message, context: context)
        }
    }

    private func requestEnded(context: ChannelHandlerContext) {
        bodyTimer?.stop()
        bodyTimer = nil
        if let up = upload {
            if let declared = up.declared, declared != up.got {
                // Short: the stream ended before the bytes its content-length promised.
                malformed("content-length \(declared) but the request's DATA frames carried \(up.got) bytes")
                return
            }
            upload = nil
            up.body.finish()
            return
        }
        guard !answered, let p = pending else { return }
        pending = nil
        recordRequest(p.request, t: p.t, exchange: p.exchange, target: p.target, url: p.url)
        if let declared = p.request.contentLength, declared != 0 {
            refuse(
                exchange: p.exchange, status: .badRequest,
                message:
                    "content-length \(declared) but the request's DATA frames carried 0 bytes; nothing was forwarded",
                context: context)
            return
        }
        start(p, body: nil, context: context)
    }

    /// Starts the exchange of a request whose body follows its head: the body goes to the
    /// origin as it arrives (``RequestBody``).
    private func startUpload(_ p: Pending, context: ChannelHandlerContext) {
        recordRequest(p.request, t: p.t, exchange: p.exchange, target: p.target, url: p.url)
        let loop = context.eventLoop
        let me = NIOLoopBound(self, eventLoop: loop)
        let body = RequestBody(budget: shared.bodyBudget) { loop.execute { me.value.readClientAgain() } }
        // An answer without the origin (a `status=` fault) leaves the body to be dropped.
        guard start(p, body: body, context: context) else { return }
        upload = Upload(exchange: p.exchange, body: body, declared: p.request.contentLength.map(Int64.init))
    }

    /// libcurl took the queued body down to its low mark (or let go of it): read the stream again.
    private func readClientAgain() {
        guard clientHeld, let context else { return }
        clientHeld = false
        context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }

    /// RFC 9113 §8.1.1: a content-length its DATA frames do not add up to makes the request
    /// malformed. Its upstream transfer is stopped (the origin never gets a body that disagrees
    /// with its length: libcurl was given the declared length) and the client answered 400.
    private func malformed(_ problem: String) {
        bodyTimer?.stop()
        bodyTimer = nil
        guard let up = upload else { return }
        upload = nil
        up.body.close()
        let failure = ErrorEvent(
            t: shared.clock.now(), exchange: up.exchange, connection: state.connection, kind: .badRequest,
            message: "\(problem); rangetap stopped the request to the origin", status: 400)
        driver?.exchange.stop(failure)
    }

    private func startBodyTimer(context: ChannelHandlerContext) {
        guard let limit = shared.configuration.bodyTimeout else { return }
        let timer = ActivityTimer(limit: limit, loop: context.eventLoop)
        bodyTimer = timer
        // Not while rangetap itself holds the stream back (the origin is slow to take the body).
        timer.start(
            stopsWhenNot: true,
            counts: { [weak self] in
                self.map { ($0.pending != nil || $0.upload != nil) && !$0.answered && !$0.clientHeld } ?? false
            }, expired: { [weak self] in self?.bodyTimedOut(after: limit) })
    }

    /// The request body received nothing for `--body-timeout`: its upstream transfer is stopped
    /// with the error, which answers 408 (when no response head was written) and resets the
    /// stream (NO_ERROR: the client need send no more); the connection's other streams go on.
    private func bodyTimedOut(after limit: TimeAmount) {
        bodyTimer = nil
        if let p = pending, !answered, let context {
            // Before its first DATA: recorded, answered, nothing forwarded.
            recordRequest(p.request, t: p.t, exchange: p.exchange, target: p.target, url: p.url)
            let message = ActivityTimer.bodyTimeoutMessage(
                limit: limit, got: 0, declared: p.request.contentLength.map(String.init),
                then: "rangetap reset the stream and forwarded nothing")
            answered = true
            pending = nil
            shared.writer.record(
                .error(
                    ErrorEvent(
                        t: shared.clock.now(), exchange: p.exchange, connection: state.connection, kind: .bodyTimeout,
                        message: message, status: 408)))
            respond(.requestTimeout, message: message, context: context)
            context.writeAndFlush(wrapOutboundOut(.rstStream(.noError)), promise: nil)
            return
        }
        guard let up = upload else { return }
        upload = nil
        up.body.close()
        let message = ActivityTimer.bodyTimeoutMessage(
            limit: limit, got: Int(up.got), declared: up.declared.map(String.init),
            then: "rangetap stopped the request to the origin and reset the stream")
        driver?.exchange.stop(
            ErrorEvent(
                t: shared.clock.now(), exchange: up.exchange, connection: state.connection, kind: .bodyTimeout,
                message: message, status: 408))
    }

    private func refuse(exchange id: Int, status: HTTPResponseStatus, message: String, context: ChannelHandlerContext) {
        answered = true
        pending = nil
        shared.writer.record(
            .error(
                ErrorEvent(
                    t: shared.clock.now(), exchange: id, connection: state.connection, kind: .refused, message: message,
                    status: Int(status.code))))
        respond(status, message: message, context: context)
    }

    // MARK: The exchange

    /// Starts the exchange of `p`, its body (when it has one) streamed from `body`. False when a
    /// `status=` fault answered it without the origin.
    @discardableResult
    private func start(_ p: Pending, body: RequestBody?, context: ChannelHandlerContext) -> Bool {
        let hasRange = p.request.http1Headers.contains(name: "range")
        let plan = shared.faultPlan(url: p.url, method: p.request.method, hasRange: hasRange)
        if let plan, let status = plan.status {
            answerInjected(status: status.code, rule: status.rule, exchange: p.exchange, context: context)
            return false
        }
        let machine = ExchangeStateMachine(
            clientVersion: HTTPVersion(major: 2, minor: 0), clientKeepAlive: true, method: p.request.method,
            clientAcceptsTrailers: p.request.acceptsTrailers, exchange: p.exchange, connection: state.connection)
        let driver = ExchangeDriver(
            id: p.exchange, connection: state.connection, machine: machine, plan: plan, share: state.share,
            mapped: shared.mapping(url: p.url, method: p.request.method, hasRange: hasRange), shared: shared,
            loop: context.eventLoop, writer: self)
        self.driver = driver
        let method = p.request.method
        var request = CurlRequest(
            url: p.url, method: method,
            headers: HeaderForwarding.upstreamRequestLines(p.request.http1Headers),
            body: body == nil && (method == "POST" || method == "PUT") ? [] : nil,
            insecure: shared.configuration.insecureUpstream, bufferSize: shared.upstreamReadSize())
        request.bodySource = body
        request.bodyLength = p.request.contentLength.map(Int64.init)
        // The protocol the client would have had: HTTP/2 to an https origin that offers it.
        if !shared.configuration.http1Only && HTTPScheme(url: p.url) == .https {
            request.http2 = .overTLS
        }
        request.idleTimeoutMs = shared.configuration.upstreamIdleTimeoutMs
        request.caFile = shared.configuration.upstreamCACertificates
        driver.start(request, range: p.request.http1Headers["range"])
        return true
    }

    /// Answers a `status=` fault on this stream: rangetap's own response, the origin not asked.
    private func answerInjected(status code: Int, rule: String, exchange id: Int, context: ChannelHandlerContext) {
        answered = true
        let status = HTTPResponseStatus(statusCode: code)
        let body = "rangetap: \(code) \(status.reasonPhrase), injected by --fault '\(rule)'\n"
        shared.recordFault(
            exchange: id, rule: rule, action: "status", detail: "answered \(code) without asking the origin")
        let lines = [
            ":status: \(code)", "content-type: text/plain; charset=utf-8", "content-length: \(body.utf8.count)",
        ]
        shared.writer.record(
            .response(
                ResponseEvent(
                    t: shared.clock.now(), exchange: id, status: code,
                    lines: lines.map { HeaderLine(raw: $0 + "\r\n") }, reused: nil, upstreamPort: nil)))
        respond(status, message: body, context: context, prefixed: false)
        shared.writer.record(
            .end(
                EndEvent(
                    t: shared.clock.now(), exchange: id, bytes: 0, sha256: "", served: Int64(body.utf8.count))))
    }

    // MARK: ClientWriter

    func writeInterim(_ head: ClientHead, for driver: ExchangeDriver) {
        context?.writeAndFlush(wrapOutboundOut(.headers(.init(headers: head.hpack))), promise: nil)
    }

    func writeHead(_ head: ClientHead, for driver: ExchangeDriver) {
        context?.writeAndFlush(wrapOutboundOut(.headers(.init(headers: head.hpack))), promise: nil)
    }

    func writeBody(_ buffer: ByteBuffer, last: Bool, for driver: ExchangeDriver) {
        guard let context, let loop else {
            driver.writeCompleted(buffer.readableBytes, written: false)
            return
        }
        let loopBound = NIOLoopBound(driver, eventLoop: loop)
        // Under `--shape`, in slices of the same storage with a completion each, so the client's
        // timeline (`delivered` events) has the grain it has over HTTP/1.1; else one write.
        var buffer = buffer
        let slice = shared.shape != nil ? ProxyHandler.deliverySlice : buffer.readableBytes
        while buffer.readableBytes > 0 {
            let piece = buffer.readSlice(length: min(buffer.readableBytes, slice))!
            let n = piece.readableBytes
            sent += Int64(n)
            // The machine said these bytes end the body the head declared: their last frame
            // ends the stream.
            let ends = last && buffer.readableBytes == 0
            let promise = loop.makePromise(of: Void.self)
            if ends { lastDataWrite = promise.futureResult }
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(piece), endStream: ends))), promise: promise)
            // Under `--shape` these complete as the link carries the bytes, also after the stream
            // channel closed (its last DATA frame, with END_STREAM, left it long before).
            promise.futureResult.whenComplete { result in
                loopBound.value.writeCompleted(n, written: (try? result.get()) != nil)
            }
        }
        context.flush()
    }

    func writeEnd(close: Bool, trailers: [String], bodyEnded: Bool, for driver: ExchangeDriver) {
        if bodyEnded {
            // The stream closed as its last DATA frame carried END_STREAM: its end is that write.
            endWithLastData()
            return
        }
        guard let context, let loop else { return }
        let frame: HTTP2Frame.FramePayload =
            trailers.isEmpty
            ? .data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))
            : .headers(.init(headers: ClientHead.hpack(trailers: trailers), endStream: true))
        let loopBound = NIOLoopBound(self, eventLoop: loop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { result in
            loopBound.value.streamEndWritten(written: (try? result.get()) != nil)
        }
    }

    func respond(_ status: HTTPResponseStatus, message: String, for driver: ExchangeDriver) {
        guard let context else { return }
        respond(status, message: message, context: context)
        if requestOpen {
            // The client need send no more of its body (RFC 9113 §8.1).
            requestOpen = false
            context.writeAndFlush(wrapOutboundOut(.rstStream(.noError)), promise: nil)
        }
    }

    func abandon(for driver: ExchangeDriver) {
        // Only this stream can be ended early: reset it.
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(.rstStream(.internalError)), promise: nil)
        context.close(promise: nil)
    }

    /// A `reset-after` or `truncate-after` rule ended this stream here: `RST_STREAM`, or an early
    /// END_STREAM (the client sees fewer bytes than the head declared); the other streams go on.
    func cut(reset: Bool, for driver: ExchangeDriver) {
        guard let context else { return }
        if reset {
            context.writeAndFlush(wrapOutboundOut(.rstStream(.internalError)), promise: nil)
            context.close(promise: nil)
        } else {
            context.writeAndFlush(
                wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))), promise: nil)
        }
    }

    func describeCut(reset: Bool, forwarded: Int64, rule: String) -> String {
        "\(reset ? "reset the stream" : "ended the stream") after \(forwarded) body bytes"
    }

    func headAsWritten(for driver: ExchangeDriver) -> [HeaderLine]? { nil }

    func finished(_ driver: ExchangeDriver) {
        guard self.driver === driver else { return }
        self.driver = nil
        if context?.channel.isActive != true { state.closed(stream: stream) }
    }

    /// The upstream ended after the DATA frame that carried END_STREAM: the stream's end is
    /// that frame's write.
    private func endWithLastData() {
        guard let lastDataWrite, let loop else { return }
        let me = NIOLoopBound(self, eventLoop: loop)
        lastDataWrite.whenComplete { result in
            me.value.streamEndWritten(written: (try? result.get()) != nil)
        }
    }

    /// The frame with END_STREAM reached the connection's socket (`written`); the stream is
    /// complete once the client's TCP acknowledged it (``awaitAcknowledgement()``). If it never
    /// got to the socket, the connection went first: judged on the next tick, when the reading
    /// of the client's TCP at the close is in (``cutByConnection()``).
    private func streamEndWritten(written: Bool) {
        guard let driver, driver.machine.awaitsClient, let loop else { return }
        let me = NIOLoopBound(self, eventLoop: loop)
        if written {
            endOffset = state.wire.written
            // If the connection closes first, settle then rather than at the next check.
            state.whenConnectionCloses(stream: stream) { me.value.cutByConnection() }
            awaitAcknowledgement()
        } else {
            loop.execute { me.value.cutByConnection() }
        }
    }

    /// Settles the stream as ended once the client's TCP acknowledged every byte up to its
    /// END_STREAM frame (acknowledged bytes read at 1 ms, doubling to 50 ms), or, if the connection closes
    /// first, by what reached it then (``cutByConnection()``). The kernel taking the bytes is not
    /// the client receiving them: a client that stops reading and leaves is a cancel, as over
    /// HTTP/1.1.
    private func awaitAcknowledgement() {
        guard let driver, driver.machine.awaitsClient, let loop, let connection else { return }
        if state.wire.unavailable {
            driver.clientReceivedAll(
                ClientOutcome(
                    t: shared.clock.now(), delivered: sent, measure: .writes, gone: false, sendBuffer: state.sendBuffer)
            )
            return
        }
        guard connection.isActive, state.wire.acked?.atClose != true else {
            cutByConnection()
            return
        }
        state.wire.refresh(connection)
        if let acked = state.wire.acked, acked.bytes >= endOffset {
            driver.clientReceivedAll(
                ClientOutcome(
                    t: shared.clock.now(), delivered: sent, measure: .h2StreamEnded, gone: false,
                    sendBuffer: state.sendBuffer, consumed: min(state.granted(stream: stream), sent)))
            return
        }
        let me = NIOLoopBound(self, eventLoop: loop)
        let delay = ackDelay
        ackDelay = min(ackDelay * 2, .milliseconds(50))
        loop.scheduleTask(in: delay) { me.value.awaitAcknowledgement() }
    }

    /// The connection ended before this stream did (its END_STREAM, if queued, never reached the
    /// socket): what reached the client is the DATA its TCP acknowledged by the close. A client
    /// that had every body byte (it may stop at Content-Length and close before END_STREAM) thus
    /// ended, one that had fewer cancelled.
    private func cutByConnection() {
        guard let driver, driver.machine.awaitsClient else { return }
        driver.clientClosed(delivery(gone: true))
    }

    /// How much of the body reached the client of a stream it reset, or that the connection's
    /// end cut: the body bytes whose DATA frames its TCP acknowledged (read now while the
    /// connection is open: the segment that carried the reset acknowledged what it had received;
    /// else the reading taken at the close), as over HTTP/1.1. What it granted back with
    /// `WINDOW_UPDATE` is what its application consumed, late and in batches (Chromium grants a
    /// 6 MB window back rarely): kept as `consumed`, and the measure only where the platform gives
    /// no acknowledged-bytes count.
    private func delivery(gone: Bool) -> ClientOutcome {
        let granted = min(state.granted(stream: stream), sent)
        var outcome = ClientOutcome(
            t: shared.clock.now(), delivered: granted, measure: .h2WindowUpdate, gone: gone,
            sendBuffer: state.sendBuffer, consumed: granted)
        if let connection, connection.isActive {
            state.wire.refresh(connection)
        }
        if let acked = state.wire.acked {
            outcome.delivered = min(state.ledger.delivered(stream: stream, acked: acked.bytes), sent)
            outcome.measure = acked.atClose ? .tcpAcked : .tcpAckedAtLastWrite
        }
        return outcome
    }

    // MARK: The stream's end

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            reset = closed.errorCode
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        defer { context.fireChannelInactive() }
        bodyTimer?.stop()
        bodyTimer = nil
        if let p = pending, !answered {
            // Reset or cut before its body began: recorded, never forwarded.
            pending = nil
            recordRequest(p.request, t: p.t, exchange: p.exchange, target: p.target, url: p.url)
            let what = p.request.contentLength.map { "0 of \($0) bytes" } ?? "0 bytes"
            let how = reset != nil ? "reset the stream" : "closed the connection"
            shared.writer.record(
                .error(
                    ErrorEvent(
                        t: shared.clock.now(), exchange: p.exchange, connection: state.connection, kind: .client,
                        message:
                            "the client \(how) before its request body was whole (\(what) received); nothing was forwarded",
                        status: nil)))
        }
        if let up = upload {
            // Reset or cut before its request body was whole: recorded; its upstream transfer
            // is stopped below, as any client close stops it.
            upload = nil
            let what = up.declared.map { "\(up.got) of \($0) bytes" } ?? "\(up.got) bytes"
            let how = reset != nil ? "reset the stream" : "closed the connection"
            shared.writer.record(
                .error(
                    ErrorEvent(
                        t: shared.clock.now(), exchange: up.exchange, connection: state.connection, kind: .client,
                        message:
                            "the client \(how) before its request body was whole (\(what) received); rangetap stopped the request to the origin",
                        status: nil)))
        }
        guard let driver, driver.machine.awaitsClient else {
            if self.driver == nil { state.closed(stream: stream) }
            return
        }
        // A stream whose END_STREAM frame was queued closes as that frame leaves for the
        // connection; whether it reached the socket is the write's to tell (streamEndWritten).
        if driver.machine.isEndWritten && reset == nil { return }
        // Reset by the client, or cut by the connection's end: what its TCP acknowledged.
        driver.clientClosed(delivery(gone: true))
    }

    // MARK: Helpers

    private func recordRequest(_ request: H2Request, t: CaptureTime, exchange: Int, target: String, url: String?) {
        var lines = request.lines
        if !shared.configuration.keepSecrets { lines = lines.redactingSecrets() }
        let keep = shared.configuration.keepSecrets
        shared.writer.record(
            .request(
                RequestEvent(
                    t: t, exchange: exchange, connection: state.connection, method: request.method,
                    target: URLRedaction.redactingUserinfo(target, if: !keep),
                    version: "HTTP/2",
                    url: url.map { URLRedaction.redactingUserinfo($0, if: !keep) }, headers: lines, stream: stream)))
    }

    /// The proxy's own response (an error it generates), plain text, ending the stream.
    private func respond(
        _ status: HTTPResponseStatus, message: String, context: ChannelHandlerContext, prefixed: Bool = true
    ) {
        var body = context.channel.allocator.buffer(capacity: message.utf8.count + 12)
        body.writeString(prefixed ? "rangetap: \(message)\n" : message)
        let headers: HPACKHeaders = [
            ":status": String(status.code), "content-type": "text/plain; charset=utf-8",
            "content-length": String(body.readableBytes),
        ]
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
    }
}

@available(*, unavailable)
extension H2StreamHandler: Sendable {}
