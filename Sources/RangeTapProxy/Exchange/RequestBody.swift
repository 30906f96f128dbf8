import NIOCore
import RangeTapCurl
import Synchronization

/// A client's request body on its way to the origin: the event loop appends what the client
/// sends, libcurl reads it as it sends (``CurlBodySource``, on the multi thread). The body is
/// never held whole: above ``highWater`` bytes queued the handler stops reading the client (its
/// socket, or its HTTP/2 stream's window), and reads again when libcurl has taken it down to
/// ``lowWater``. Queued bytes count against the process's ``BodyBudget``.
///
/// Why: the whole body was read before the request was forwarded, 64 MiB at most per request,
/// so ten endless uploads held 640 MiB and an origin saw an upload only once it had ended.
final class RequestBody: CurlBodySource, Sendable {
    /// Stop reading the client above this many bytes queued.
    static let highWater = 256 * 1024
    /// Read it again at or below this many.
    static let lowWater = 64 * 1024

    private struct State {
        var parts: [ByteBuffer] = []
        var first = 0
        var queued = 0
        var ended = false
        /// The transfer let go of the body (it ended, or failed): what comes now is dropped.
        var closed = false
        /// libcurl found nothing to send and paused its sending.
        var sendingPaused = false
        /// The handler stopped reading the client.
        var clientHeld = false
        var appended: Int64 = 0
    }

    private let state = Mutex(State())
    private let budget: BodyBudget
    /// Event loop of the client: read the client again.
    private let readAgain: @Sendable () -> Void
    /// Resumes the transfer's sending; set when the transfer starts.
    private let resumeSending = Mutex<(@Sendable () -> Void)?>(nil)

    /// A body charged to `budget`; `readAgain` (called from any thread) makes the handler read
    /// its client again after it was told to stop.
    init(budget: BodyBudget, readAgain: @escaping @Sendable () -> Void) {
        self.budget = budget
        self.readAgain = readAgain
    }

    /// What resumes the upstream transfer's sending when bytes come after a pause.
    func onBytes(_ resume: @escaping @Sendable () -> Void) {
        resumeSending.withLock { $0 = resume }
    }

    /// Bytes the client has sent so far.
    var bytesAppended: Int64 { state.withLock { $0.appended } }

    /// Event loop: bytes from the client. Returns false when the handler must stop reading the
    /// client until ``readAgain`` is called.
    func append(_ buffer: ByteBuffer) -> Bool {
        let n = buffer.readableBytes
        let (wake, hold, charged) = state.withLock { s -> (Bool, Bool, Bool) in
            s.appended += Int64(n)
            guard !s.closed, n > 0 else { return (false, false, false) }
            s.parts.append(buffer)
            s.queued += n
            let wake = s.sendingPaused
            s.sendingPaused = false
            let hold = s.queued >= Self.highWater
            if hold { s.clientHeld = true }
            return (wake, hold, true)
        }
        if charged { budget.force(n) }
        if wake { resumeSending.withLock { $0 }?() }
        return !hold
    }

    /// Event loop: the client's body ended.
    func finish() {
        let wake = state.withLock { s -> Bool in
            s.ended = true
            defer { s.sendingPaused = false }
            return s.sendingPaused
        }
        if wake { resumeSending.withLock { $0 }?() }
    }

    /// The transfer let go of the body: what is queued is dropped, and the client read again
    /// (its remaining bytes are read and dropped, so an HTTP/1.1 connection stays in step).
    func close() {
        let (dropped, release) = state.withLock { s -> (Int, Bool) in
            guard !s.closed else { return (0, false) }
            s.closed = true
            let dropped = s.queued
            s.parts = []
            s.first = 0
            s.queued = 0
            defer { s.clientHeld = false }
            return (dropped, s.clientHeld)
        }
        resumeSending.withLock { $0 = nil }
        if dropped > 0 { budget.give(dropped) }
        if release { readAgain() }
    }

    // MARK: CurlBodySource (multi thread)

    func read(into buffer: UnsafeMutableRawBufferPointer) -> CurlReadResult {
        let (result, taken, release) = state.withLock { s -> (CurlReadResult, Int, Bool) in
            if s.closed { return (.abort, 0, false) }
            if s.queued == 0 {
                if s.ended { return (.end, 0, false) }
                s.sendingPaused = true
                return (.pause, 0, false)
            }
            var copied = 0
            while copied < buffer.count, s.first < s.parts.count {
                let k = s.parts[s.first].readWithUnsafeReadableBytes { src -> Int in
                    let k = min(src.count, buffer.count - copied)
                    (buffer.baseAddress! + copied).copyMemory(from: src.baseAddress!, byteCount: k)
                    return k
                }
                copied += k
                if s.parts[s.first].readableBytes == 0 {
                    s.first += 1
                }
            }
            if s.first == s.parts.count {
                s.parts.removeAll(keepingCapacity: true)
                s.first = 0
            } else if s.first > 64 {
                s.parts.removeFirst(s.first)
                s.first = 0
            }
            s.queued -= copied
            let release = s.clientHeld && s.queued <= Self.lowWater
            if release { s.clientHeld = false }
            return (.bytes(copied), copied, release)
        }
        if taken > 0 { budget.give(taken) }
        if release { readAgain() }
        return result
    }
}
