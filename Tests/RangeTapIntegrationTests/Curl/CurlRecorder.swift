import Foundation
import RangeTapCurl
import Synchronization

/// A ``CurlTransferDelegate`` that keeps everything libcurl hands it, for one transfer, and
/// hands it back when libcurl lets go of the transfer.
final class CurlRecorder: CurlTransferDelegate, Sendable {
    /// What the body callback does.
    enum Behaviour: Sendable {
        /// Take every byte.
        case read
        /// Answer `pause` to the first `times` body calls, each followed at once by an unpause.
        case pauseAndResume(times: Int)
        /// Cancel the transfer at the first body call.
        case cancelAtFirstBody
    }

    /// Everything one transfer delivered.
    struct Received: Sendable {
        /// Raw header lines, terminators included, in order.
        var headerLines: [[UInt8]] = []
        /// Body bytes, in order.
        var body: [UInt8] = []
        /// Sizes of the body calls that were taken.
        var bodyCalls: [Int] = []
        /// `transferDidEndRound` calls.
        var rounds = 0
        /// `transferWillResume` calls.
        var resumes = 0
        /// How it ended.
        var result: CurlResult?

        /// The header lines as Latin-1 text.
        var headerText: [String] { headerLines.map { String($0.map { Character(Unicode.Scalar($0)) }) } }

        /// The status of the last status line (the final response's).
        var status: Int? {
            guard let line = headerText.last(where: { $0.hasPrefix("HTTP/") }) else { return nil }
            let parts = line.split(separator: " ")
            return parts.count > 1 ? Int(parts[1]) : nil
        }

        /// The value of the last header line named `name` (case-insensitive), trimmed.
        func header(_ name: String) -> String? {
            for line in headerText.reversed() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].lowercased() == name.lowercased() {
                    return line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\r", "\n"])
                }
            }
            return nil
        }
    }

    private struct State {
        var received = Received()
        var pausesLeft: Int
        var continuation: CheckedContinuation<Received, Never>?
    }

    private let multi: CurlMulti
    private let behaviour: Behaviour
    private let state: Mutex<State>

    private init(multi: CurlMulti, behaviour: Behaviour, continuation: CheckedContinuation<Received, Never>) {
        self.multi = multi
        self.behaviour = behaviour
        var pauses = 0
        if case .pauseAndResume(let times) = behaviour { pauses = times }
        state = Mutex(State(pausesLeft: pauses, continuation: continuation))
    }

    /// Runs `request` on `multi` and returns what it delivered once libcurl let go of it.
    static func fetch(_ request: CurlRequest, on multi: CurlMulti, behaviour: Behaviour = .read) async -> Received {
        await withCheckedContinuation { continuation in
            let recorder = CurlRecorder(multi: multi, behaviour: behaviour, continuation: continuation)
            multi.start(CurlTransfer(request: request, delegate: recorder))
        }
    }

    func transfer(_ transfer: CurlTransfer, didReceiveHeaderLine line: UnsafeRawBufferPointer) {
        state.withLock { $0.received.headerLines.append(Array(line)) }
    }

    func transfer(_ transfer: CurlTransfer, didReceiveBody bytes: UnsafeRawBufferPointer) -> CurlWriteDecision {
        switch behaviour {
        case .read:
            break
        case .pauseAndResume:
            let pause = state.withLock { s -> Bool in
                guard s.pausesLeft > 0 else { return false }
                s.pausesLeft -= 1
                return true
            }
            if pause {
                multi.unpause(transfer)
                return .pause
            }
        case .cancelAtFirstBody:
            multi.cancel(transfer)
        }
        state.withLock { s in
            s.received.body += bytes
            s.received.bodyCalls.append(bytes.count)
        }
        return .consumed
    }

    func transferDidEndRound(_ transfer: CurlTransfer) {
        state.withLock { $0.received.rounds += 1 }
    }

    func transferWillResume(_ transfer: CurlTransfer) {
        state.withLock { $0.received.resumes += 1 }
    }

    func transfer(_ transfer: CurlTransfer, didFinish result: CurlResult) {
        let (received, continuation) = state.withLock { s -> (Received, CheckedContinuation<Received, Never>?) in
            s.received.result = result
            defer { s.continuation = nil }
            return (s.received, s.continuation)
        }
        continuation?.resume(returning: received)
    }
}
