import RangeTapCore
import Synchronization

/// Lets the upstream thread send one exchange's response head to the client socket itself, the
/// moment libcurl has it, instead of posting it to the event loop and waiting for that thread
/// to be scheduled: on a busy machine the hop cost a quarter to a whole millisecond of time to
/// first byte (`docs/performance.md`, "Time to first byte").
///
/// Offered by ``ProxyHandler`` only where nothing else can be written to the client before that
/// head: a plain HTTP/1 connection, no `--shape`, no `--fault` rule for the exchange, nothing of
/// earlier responses left unwritten. Exactly one side wins: the upstream thread in
/// ``send(lines:bodyLength:)``, or the event loop by ``withdraw()``, which ``ClientWireHandler``
/// calls on any write while the offer stands. The head sent is the one ``ExchangeStateMachine`` makes (the same machine,
/// fed the same lines, makes it again on the event loop, which then writes only what is left).
final class DirectHeadOffer: Sendable {
    /// 0: open; 1: taken by the upstream thread; 2: withdrawn by the event loop.
    private let state = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)
    let socket: ClientSocket
    /// The exchange's machine as it starts (awaiting the head): a copy builds the head.
    private let machine: ExchangeStateMachine

    /// Heads of responses with a `Content-Length` below this go the usual way: the event loop
    /// then writes head and body in one `writev(2)` (one wake-up of the client, not two).
    static let smallBody: Int64 = 64 * 1024

    init(socket: ClientSocket, machine: ExchangeStateMachine) {
        self.socket = socket
        self.machine = machine
    }

    /// Upstream thread, with the final head's lines: sends the client head if the offer still
    /// stands and the response is not a small one. Returns whether it took the offer.
    func send(lines: [HeaderLine], bodyLength: Int64?) -> Bool {
        if let bodyLength, bodyLength < Self.smallBody { return false }
        var machine = self.machine
        guard case .writeHead(let head) = machine.upstreamHead(lines: lines) else { return false }
        guard state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return false }
        sent.store(socket.sendNow(head.bytes), ordering: .releasing)
        return true
    }

    /// Event loop: no head may be sent from the upstream thread any more (unless it already was).
    func withdraw() {
        _ = state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing)
    }

    /// Event loop, handling the head: how many of its bytes the upstream thread already sent.
    var bytesSent: Int {
        state.load(ordering: .acquiring) == 1 ? sent.load(ordering: .acquiring) : 0
    }
}
