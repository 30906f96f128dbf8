import NIOCore
import RangeTapCore
import RangeTapCurl
@testable import RangeTapProxy
import Synchronization

/// An upstream a handler test scripts message by message, in place of libcurl: each exchange the
/// handler starts becomes a ``ScriptedTransfer`` whose head, body, end or failure the test sends
/// when it chooses, and which records what the driver asked of it (start, abort, resume).
final class ScriptedUpstream: UpstreamConnector, Sendable {
    private let started = Mutex<[ScriptedTransfer]>([])
    private let highWater: Int
    private let lowWater: Int

    /// Transfers get a back-pressure window of `highWater`/`lowWater` bytes.
    init(highWater: Int = 1 << 20, lowWater: Int = 256 << 10) {
        self.highWater = highWater
        self.lowWater = lowWater
    }

    func transfer(
        id: Int, connection: Int, share: ConnectionShare?, context: RecordingContext,
        deliver: @escaping @Sendable (UpstreamMessage) -> Void
    ) -> any UpstreamTransfer {
        let t = ScriptedTransfer(
            id: id, connection: connection,
            flow: FlowControl(highWater: highWater, lowWater: lowWater, budget: context.bodyBudget, share: share),
            deliver: deliver)
        started.withLock { $0.append(t) }
        return t
    }

    /// Every transfer made so far, in order.
    var transfers: [ScriptedTransfer] { started.withLock { $0 } }

    var activeTransfers: Int { started.withLock { $0.filter { !$0.ended }.count } }

    func shutdown() {}
}

/// One scripted exchange's upstream half: the test's side sends what an origin (through
/// libcurl) would; the driver's side is recorded.
final class ScriptedTransfer: UpstreamTransfer, @unchecked Sendable {
    let id: Int
    let connection: Int
    let flow: FlowControl
    private let deliver: @Sendable (UpstreamMessage) -> Void
    /// What the driver asked for, in order ("start", "abort", "resume").
    private(set) var calls: [String] = []
    /// The request the driver started, once it has.
    private(set) var request: CurlRequest?
    /// Body bytes sent so far.
    private(set) var received: Int64 = 0
    /// Whether an end or failure was sent.
    private(set) var ended = false

    init(id: Int, connection: Int, flow: FlowControl, deliver: @escaping @Sendable (UpstreamMessage) -> Void) {
        self.id = id
        self.connection = connection
        self.flow = flow
        self.deliver = deliver
    }

    deinit {
        flow.close()
    }

    func stop(_ failure: ErrorEvent) {
        calls.append("stop")
        stopFailure = failure
    }

    /// The failure the driver stopped the transfer with.
    private(set) var stopFailure: ErrorEvent?

    func start(_ request: CurlRequest) {
        self.request = request
        calls.append("start")
    }

    func abort() { calls.append("abort") }

    func resume() { calls.append("resume") }

    /// Whether the driver asked to abort the transfer.
    var aborted: Bool { calls.contains("abort") }

    // MARK: The origin's side

    private static func lines(_ status: String, _ fields: [String]) -> [HeaderLine] {
        ([status] + fields + [""]).map { HeaderLine(raw: $0 + "\r\n") }
    }

    /// An interim (1xx) head.
    func interim(_ status: String, _ fields: [String] = []) {
        deliver(.interim(Self.lines(status, fields)))
    }

    /// The final head.
    func head(_ status: String, _ fields: [String]) {
        deliver(.head(Self.lines(status, fields)))
    }

    /// Body bytes, admitted through the flow window as libcurl's callback admits them; false
    /// when the window is full and libcurl would pause (the bytes are not sent then).
    @discardableResult
    func body(_ bytes: [UInt8]) -> Bool {
        guard flow.admit(bytes.count) else { return false }
        received += Int64(bytes.count)
        deliver(.body(ByteBuffer(bytes: bytes)))
        return true
    }

    /// Body text (ASCII).
    @discardableResult
    func body(_ text: String) -> Bool { body(Array(text.utf8)) }

    /// The body ended at time `t`.
    func end(t: CaptureTime = 0, trailers: [String] = []) {
        ended = true
        let lines = trailers.map { HeaderLine(raw: $0 + "\r\n") }
        deliver(.end(trailers: lines, UpstreamOutcome(t: t, received: received, trailers: lines)))
    }

    /// The transfer failed as libcurl reports it (curl error `code`), the client still there.
    func fail(code: Int, message: String, headReceived: Bool, t: CaptureTime = 0) {
        ended = true
        let text = "upstream failed: \(message) (curl error \(code))"
        let event = ErrorEvent(
            t: t, exchange: id, connection: connection, kind: .upstream, message: text, curlCode: code,
            received: received, status: headReceived ? nil : 502)
        deliver(.failed(text, timedOut: false, UpstreamOutcome(t: t, received: received, failure: event)))
    }

    /// The end of a transfer the driver aborted because the client left.
    func stoppedAfterAbort(t: CaptureTime = 0) {
        ended = true
        deliver(.failed("the client left", timedOut: false, UpstreamOutcome(t: t, received: received)))
    }
}
