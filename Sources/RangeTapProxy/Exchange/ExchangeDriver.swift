import NIOCore
import NIOHTTP1
import RangeTapCore
import RangeTapCurl

/// Drives one exchange for either protocol: owns its upstream half (an ``UpstreamTransfer`` from
/// the context's ``UpstreamConnector``: libcurl's ``Exchange`` in the proxy), its
/// ``ExchangeStateMachine``, the `--fault` rules acting on it (``FaultGate``), its `delivered`
/// progress under `--shape`, and the recording of how it settled. Everything the upstream
/// transfer reports comes here on the client's event loop; the machine's actions go to a
/// ``ClientWriter`` (an HTTP/1.1 connection or an HTTP/2 stream), which reports back what the
/// client did. So an HTTP/1.1 response and an HTTP/2 stream are the same exchange on the wire of
/// their protocol: the same end-or-cancel rule, the same aborts, the same events.
///
/// Lives from the request's start until it settled: the upstream transfer's messages hold it
/// (through the upstream transfer's delivery) until then, whatever became of the writer.
final class ExchangeDriver {
    /// The exchange's id.
    let id: Int
    /// The upstream half.
    let exchange: any UpstreamTransfer
    /// Both halves' state; read by writers, changed only here.
    private(set) var machine: ExchangeStateMachine
    /// HTTP/1.1: where the body bytes sit in the connection's byte stream (written by the writer).
    var wireMap = WireDeliveryMap()
    /// The head bytes as written to the client, when a fault rule may record them.
    var writtenHead: [UInt8]?
    private var gate: FaultGate?
    /// Body bytes of the upstream transfer handed to this driver so far (for a fault's cut).
    private var upstreamBodyBytes: Int64 = 0
    private var progress = DeliveryProgress()
    private let shared: RecordingContext
    private let loop: any EventLoop
    /// The client side; held (with the writer holding the driver) until the exchange settled, so
    /// a stream or connection whose channel closed first still hears how its exchange ended.
    private var writer: (any ClientWriter)?
    /// Holds this driver for the upstream transfer's messages until it settled.
    private let slot: NIOLoopBound<Slot>

    /// What the upstream transfer delivers to: the driver, until it settled.
    private final class Slot {
        var driver: ExchangeDriver?
    }

    /// A driver for exchange `id` on `connection`, its machine built, its upstream half ready to
    /// start; `plan` is the `--fault` rules that matched it; `share`, the part of the body budget
    /// its connection's exchanges share (HTTP/2); `mapped`, the `--map` rule that answers it
    /// instead of the origin.
    init(
        id: Int, connection: Int, machine: ExchangeStateMachine, plan: FaultPlan?, share: ConnectionShare? = nil,
        mapped: (rule: MapRule, maps: MapRuleSet)? = nil, shared: RecordingContext, loop: any EventLoop,
        writer: any ClientWriter
    ) {
        self.id = id
        self.machine = machine
        self.shared = shared
        self.loop = loop
        self.writer = writer
        gate = plan.map(FaultGate.init)
        let slot = NIOLoopBound(Slot(), eventLoop: loop)
        self.slot = slot
        let upstream: any UpstreamConnector =
            mapped.map { MappedUpstream(rule: $0.rule, captures: $0.maps.captures) } ?? shared.upstream
        exchange = upstream.transfer(id: id, connection: connection, share: share, context: shared) { message in
            loop.execute { slot.value.driver?.receive(message) }
        }
        slot.value.driver = self
    }

    /// Whether a fault rule acts on the exchange.
    var isFaulted: Bool { gate != nil }

    /// Starts the upstream transfer. An `ignore-range` rule asks the origin without the Range
    /// lines, recorded as a fault.
    func start(_ request: CurlRequest, range: [String]) {
        var request = request
        if let rule = gate?.plan.ignoreRange, !range.isEmpty {
            request.headers = FaultGate.removingRange(request.headers)
            shared.recordFault(
                exchange: id, rule: rule, action: "ignore-range",
                detail: "asked the origin without Range: \(range.joined(separator: ", "))")
        }
        exchange.start(request)
    }

    // MARK: The upstream half

    /// A message of the upstream transfer: counted for a fault's cut, then handled.
    private func receive(_ message: UpstreamMessage) {
        if gate != nil, case .body(let buffer) = message { upstreamBodyBytes += Int64(buffer.readableBytes) }
        handle(message)
    }

    /// A message of the upstream transfer (or one a fault held), through the fault rules if any.
    private func handle(_ message: UpstreamMessage) {
        guard gate != nil else {
            pass(message)
            return
        }
        for step in gate!.admit(message) {
            switch step {
            case .forward(let m):
                pass(m)
            case .headRewritten(let rule, let action, let detail, let rewritten):
                let lines = writer?.headAsWritten(for: self) ?? rewritten
                shared.recordFault(exchange: id, rule: rule, action: action, detail: detail, lines: lines)
            case .hold(let ns, let rule, let action, let detail):
                shared.recordFault(exchange: id, rule: rule, action: action, detail: detail)
                let me = NIOLoopBound(self, eventLoop: loop)
                loop.scheduleTask(in: .nanoseconds(ns)) { me.value.releaseHeld() }
            case .cut(let reset, let rule, _):
                cut(reset: reset, rule: rule)
                return
            }
        }
    }

    /// A `delay-head` or `stall-after` hold ended: what it held goes on, in order.
    private func releaseHeld() {
        guard gate != nil, slot.value.driver === self else { return }
        for message in gate!.release() { handle(message) }
    }

    /// A `reset-after` or `truncate-after` rule ends the response here: recorded as a fault (not a
    /// client cancel), the upstream transfer stopped, the writer resets or ends early.
    private func cut(reset: Bool, rule: String) {
        let forwarded = gate?.forwarded ?? 0
        let detail =
            writer?.describeCut(reset: reset, forwarded: forwarded, rule: rule) ?? "cut after \(forwarded) body bytes"
        shared.recordFault(exchange: id, rule: rule, action: reset ? "reset-after" : "truncate-after", detail: detail)
        shared.writer.record(
            .error(
                ErrorEvent(
                    t: shared.clock.now(), exchange: id, connection: machine.connection, kind: .fault,
                    message: "\(detail), as --fault '\(rule)' asked", received: upstreamBodyBytes,
                    delivered: forwarded)))
        slot.value.driver = nil
        exchange.abort()
        let writer = self.writer
        self.writer = nil
        writer?.finished(self)
        writer?.cut(reset: reset, for: self)
    }

    private func pass(_ message: UpstreamMessage) {
        let action: ExchangeStateMachine.Action
        switch message {
        case .interim(let lines): action = machine.upstreamInterim(lines: lines)
        case .head(let lines): action = machine.upstreamHead(lines: lines)
        case .body(let buffer): action = machine.upstreamBody(buffer)
        case .end(let trailers, let outcome): action = machine.upstreamEnd(trailers: trailers, outcome: outcome)
        case .failed(let text, let timedOut, let outcome):
            action = machine.upstreamFailed(message: text, timedOut: timedOut, outcome: outcome)
        }
        perform(action)
        settle()
    }

    // MARK: The client half

    /// A body write finished; `written` tells whether the socket took it.
    func writeCompleted(_ n: Int, written: Bool) {
        let drained = exchange.flow.complete(n)
        guard !machine.isSettled else {
            if drained { exchange.resume() }
            return
        }
        let action = machine.writeCompleted(n, written: written, windowDrained: drained)
        // Under `--shape` these completions come as the link carries the bytes.
        if written, shared.shape != nil, let event = progress.wrote(n, exchange: id, now: shared.clock.now()) {
            shared.writer.record(.delivered(event))
        }
        perform(action)
    }

    /// The client closed (its connection, or reset its stream), having `outcome`'s bytes; the
    /// upstream transfer is aborted if it still runs.
    func clientClosed(_ outcome: ClientOutcome) {
        guard !machine.isSettled else { return }
        perform(machine.clientClosed(outcome))
        settle()
    }

    /// Every body byte of the finished response was seen to reach the client.
    func clientReceivedAll(_ outcome: ClientOutcome) {
        guard !machine.isSettled else { return }
        perform(machine.clientReceivedAll(outcome))
        settle()
    }

    /// Carries out what the machine decided: the upstream's part here, the client's by the writer.
    private func perform(_ action: ExchangeStateMachine.Action) {
        switch action {
        case .none:
            break
        case .writeInterim(let head):
            writer?.writeInterim(head, for: self)
        case .writeHead(let head):
            writer?.writeHead(head, for: self)
        case .writeBody(let buffer, let last):
            if let writer {
                writer.writeBody(buffer, last: last, for: self)
            } else {
                // No client side left to write to: the bytes count as not written.
                writeCompleted(buffer.readableBytes, written: false)
            }
        case .discardBody(let n):
            writeCompleted(n, written: false)
        case .writeEnd(let close, let trailers, let bodyEnded):
            writer?.writeEnd(close: close, trailers: trailers, bodyEnded: bodyEnded, for: self)
        case .respondWithError(let status, let message):
            // The transfer has stopped, or its response is unusable: either way it goes no further.
            exchange.abort()
            writer?.respond(status, message: message, for: self)
        case .closeConnection:
            writer?.abandon(for: self)
        case .cancelUpstream:
            exchange.abort()
        case .resumeUpstream:
            exchange.resume()
        }
    }

    /// Records what the machine settled; once settled, the final `delivered` progress, and the
    /// writer lets the exchange go.
    private func settle() {
        if let event = machine.takeRecord() {
            shared.writer.record(event.stamped(shared.clock.now()))
        }
        guard machine.isSettled, slot.value.driver === self else { return }
        if shared.shape != nil, let event = progress.last(exchange: id, now: shared.clock.now()) {
            shared.writer.record(.delivered(event))
        }
        slot.value.driver = nil
        let writer = self.writer
        self.writer = nil
        writer?.finished(self)
    }
}

@available(*, unavailable)
extension ExchangeDriver: Sendable {}
