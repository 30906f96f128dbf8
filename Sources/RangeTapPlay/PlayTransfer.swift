import Dispatch
import RangeTapCore
import RangeTapCurl
import Synchronization

/// The libcurl side of one scripted request: picks the status, `Content-Range` and
/// `Content-Length` out of the raw header lines, counts body bytes, hangs up (through
/// ``CurlMulti/cancel(_:)``) once the read limit is reached, and hands the outcome back.
///
/// Its mutable state is touched only on the ``CurlMulti`` thread (every delegate call runs
/// there); ``headSeen`` and ``timedOut`` are atomics read by the watchdog.
final class PlayTransfer: CurlTransferDelegate, @unchecked Sendable {
    private let multi: CurlMulti
    private let readLimit: Int64?
    private let startedAt = MonotonicClock()
    private var continuation: CheckedContinuation<FetchOutcome, Never>?

    private var heads = ResponseHeadAssembler()
    private var status: Int?
    private var finalHead = false
    private var contentRange: String?
    private var contentLength: Int64?
    private var bytes: Int64 = 0
    private var hangingUp = false
    private var reused: Bool?

    /// The failure text of a transfer the watchdog cancelled.
    static let timeoutFailure = "no response head in time"

    /// Whether a final response head arrived.
    let headSeen = Atomic<Bool>(false)
    /// Whether the watchdog cancelled the transfer for want of a response head.
    let timedOut = Atomic<Bool>(false)

    /// A delegate that resumes `continuation` exactly once, when libcurl lets go of the transfer.
    init(multi: CurlMulti, readLimit: Int64?, continuation: CheckedContinuation<FetchOutcome, Never>) {
        self.multi = multi
        self.readLimit = readLimit
        self.continuation = continuation
    }

    func transfer(_ transfer: CurlTransfer, didReceiveHeaderLine line: UnsafeRawBufferPointer) {
        // Interim heads (1xx) pass; a 101 or an unreadable status line is no answer a player reads.
        guard case .final(let head) = heads.add(HeaderLine(raw: Latin1.string(line))),
            let status = head.statusLine?.status, status >= 200
        else { return }
        self.status = status
        // The last of repeated fields counts.
        contentRange = head.lines.values(named: "Content-Range").last.map(String.init)
        contentLength = head.lines.values(named: "Content-Length").last.flatMap { Int64($0) }
        finalHead = true
        reused = transfer.connectionInfo()?.reused
        headSeen.store(true, ordering: .releasing)
    }

    func transfer(_ transfer: CurlTransfer, didReceiveBody body: UnsafeRawBufferPointer) -> CurlWriteDecision {
        // After the hang-up is posted, take nothing more: the cancel removes the handle next round.
        if hangingUp { return .pause }
        bytes += Int64(body.count)
        if let readLimit, bytes >= readLimit {
            hangingUp = true
            multi.cancel(transfer)
        }
        return .consumed
    }

    func transferDidEndRound(_ transfer: CurlTransfer) {}

    func transfer(_ transfer: CurlTransfer, didFinish result: CurlResult) {
        let end: FetchOutcome.End
        var failure: String?
        var curlCode: Int?
        switch result {
        case .ok:
            end = .complete
        case .cancelled:
            if timedOut.load(ordering: .acquiring) {
                end = .failed
                failure = Self.timeoutFailure
            } else {
                end = .cancelled
            }
        case .failed(let code, let message):
            end = .failed
            failure = message
            curlCode = code
        }
        let outcome = FetchOutcome(
            status: finalHead ? status : nil, contentRange: contentRange, contentLength: contentLength,
            bytesRead: bytes, end: end, failure: failure, curlCode: curlCode, durationNs: startedAt.now(),
            connectionReused: reused)
        let c = continuation
        continuation = nil
        c?.resume(returning: outcome)
    }
}
