import NIOCore
import NIOHTTP1

/// One client connection of a ``FixtureServer``. Requests are answered in turn (pipelined ones
/// wait): each answer's ``ResponseProgram`` runs on the channel's event loop, pauses as
/// scheduled tasks and one write in flight at a time, so a slow client holds the body back and
/// nothing depends on Swift's cooperative pool. The connection closes when an answer says so.
final class FixtureConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private let responder: FixtureResponder
    private var head: HTTPRequestHead?
    private var arrived = NIODeadline.now()
    private var waiting: [FixtureRequest] = []
    private var running: ResponseProgram?
    private var step = 0
    /// The request log's entry for the running program, when the server keeps a log.
    private var logEntry: Int?
    private var pause: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var closing = false

    /// A handler answering with `responder`.
    init(responder: FixtureResponder) {
        self.responder = responder
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            arrived = .now()
        case .body:
            break  // request bodies are read and dropped
        case .end:
            guard let head, !closing else { return }
            self.head = nil
            waiting.append(FixtureRequest(head: head, arrived: arrived))
            startNext()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, !closing else {
            context.close(promise: nil)
            return
        }
        // Answer what came before, then a 400, then close.
        closing = true
        pendingBadRequest = true
        startNext()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private var pendingBadRequest = false

    // MARK: Running programs

    private func startNext() {
        guard running == nil, context != nil else { return }
        if !waiting.isEmpty {
            let request = waiting.removeFirst()
            let program = responder.program(for: request)
            logEntry = responder.requestLog?.begin(request, status: program.status)
            begin(program)
        } else if pendingBadRequest {
            pendingBadRequest = false
            logEntry = nil
            begin(responder.badRequestProgram())
        }
    }

    private func begin(_ program: ResponseProgram) {
        running = program
        step = 0
        responder.active(1)
        advance()
    }

    /// Carries out steps until one has to wait (a pause or a write in flight).
    private func advance() {
        guard let context, var program = running else { return }
        while step < program.steps.count {
            switch program.steps[step] {
            case .pause(let deadline):
                step += 1
                if deadline > .now() {
                    pause = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
                        pause = nil
                        advance()
                    }
                    return
                }
            case .send(let bytes, let body):
                step += 1
                write(bytes, body: body, context: context)
                return
            case .sendRecorded(let offset, let count, let chunked):
                step += 1
                do {
                    write(
                        try responder.recordedBytes(offset: offset, count: count, chunked: chunked), body: count,
                        context: context)
                } catch {
                    fail(context)
                }
                return
            case .sendResource(let path, let range):
                do {
                    let bytes = try responder.resourceBytes(path: path, range: range)
                    let rest = (range.lowerBound + Int64(bytes.count))..<range.upperBound
                    if rest.isEmpty {
                        step += 1
                    } else {
                        program.steps[step] = .sendResource(path: path, range: rest)
                        running = program
                    }
                    write(bytes, body: bytes.count, context: context)
                } catch {
                    fail(context)
                }
                return
            }
        }
        finish(program, context: context)
    }

    private func write(_ bytes: [UInt8], body: Int, context: ChannelHandlerContext) {
        guard !bytes.isEmpty else {
            advance()
            return
        }
        let responder = self.responder
        let loop = context.eventLoop
        // Whether only pauses are left after this write (the answer is then written in full).
        let isLastWrite =
            running.map { $0.steps[step...].allSatisfy { if case .pause = $0 { true } else { false } } } ?? false
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes))).assumeIsolated()
            .whenComplete { [self] result in
                switch result {
                case .success:
                    responder.sent(body)
                    if let entry = logEntry {
                        // Here, not in the next step: a client may see these bytes before that runs.
                        responder.requestLog?.wrote(entry, bytes: body, complete: isLastWrite)
                    }
                    // A fresh stack for the next step: a write can complete inside the flush.
                    loop.assumeIsolated().execute { [self] in advance() }
                case .failure:
                    fail(context)
                }
            }
    }

    private func finish(_ program: ResponseProgram, context: ChannelHandlerContext) {
        if let entry = logEntry { responder.requestLog?.wrote(entry, bytes: 0, complete: true) }
        logEntry = nil
        running = nil
        responder.active(-1)
        responder.lineSink?(program.summary)
        if program.keepAlive {
            startNext()
        } else {
            closing = true
            waiting.removeAll()
            context.close(promise: nil)
        }
    }

    private func fail(_ context: ChannelHandlerContext) {
        stop()
        context.close(promise: nil)
    }

    /// Abandons the answer in progress (the client left or a read failed).
    private func stop() {
        pause?.cancel()
        pause = nil
        if running != nil {
            running = nil
            logEntry = nil
            responder.active(-1)
        }
        waiting.removeAll()
        pendingBadRequest = false
        closing = true
    }
}

@available(*, unavailable)
extension FixtureConnectionHandler: Sendable {}
