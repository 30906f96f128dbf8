import CCurl
import Foundation
import Synchronization

/// One libcurl multi handle driven by one dedicated thread (`curl_multi_poll`), shared by all
/// transfers so upstream connections are reused. Other threads talk to it only through
/// commands, which wake the poll with `curl_multi_wakeup`.
public final class CurlMulti: Sendable {
    private enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
        case unpause(CurlTransfer)
        case unpauseSending(CurlTransfer)
    }

    private struct Shared {
        var commands: [Command] = []
        var stopping = false
        var active = 0
    }

    private let multi: SendablePointer
    /// TLS sessions shared by every transfer of this multi handle (`CURLOPT_SHARE`), so a new
    /// connection to an origin resumes a session of an earlier one instead of a full handshake.
    /// Used only on the multi thread, as libcurl's share handles without lock functions must be.
    private let sessions: SendablePointer?
    private let shared = Mutex(Shared())
    private let stopped = DispatchSemaphore(value: 0)

    /// Initialises libcurl (once per process) and starts the thread.
    public init(maxConnections: Int = 64, multiplex: Bool = true) throws(CurlError) {
        let rc = CurlGlobal.initialise()
        guard rc == 0 else { throw .globalInit(rc) }
        guard let m = curl_multi_init() else { throw .multiInit }
        _ = ccurl_multi_setopt_long(m, CURLMOPT_MAXCONNECTS, maxConnections)
        // multiplex: HTTP/2 transfers to one origin share a connection, one stream each.
        _ = ccurl_multi_setopt_long(m, CURLMOPT_PIPELINING, multiplex ? ccurl_pipe_multiplex : ccurl_pipe_nothing)
        multi = SendablePointer(m)
        sessions = ccurl_share_ssl_sessions().map(SendablePointer.init)
        let thread = Thread { [self] in self.run() }
        thread.name = "rangetap-curl"
        thread.start()
    }

    /// Idle easy handles kept for reuse, at most: each may hold a touched read buffer of its
    /// `CURLOPT_BUFFERSIZE` (the proxy's 256 KiB), so a burst of large transfers leaves no more
    /// than 4 MiB behind.
    static let idleHandles = 16

    /// The result code of a transfer ended by its ``CurlRequest/idleTimeoutMs`` (libcurl's
    /// `CURLE_OPERATION_TIMEDOUT`).
    public static let idleTimeoutCode = 28

    /// Number of transfers libcurl holds right now (for leak checks).
    public var activeTransfers: Int { shared.withLock { $0.active } }

    /// Starts a transfer; its delegate is called on the multi thread from now on.
    public func start(_ transfer: CurlTransfer) { post(.start(transfer)) }

    /// Aborts a transfer at once; its delegate then gets `didFinish(.cancelled)` unless it finished already.
    public func cancel(_ transfer: CurlTransfer) { post(.cancel(transfer)) }

    /// Resumes a transfer paused by its delegate.
    public func unpause(_ transfer: CurlTransfer) { post(.unpause(transfer)) }

    /// Resumes the sending of a transfer whose body source had no bytes (``CurlReadResult/pause``).
    public func unpauseSending(_ transfer: CurlTransfer) { post(.unpauseSending(transfer)) }

    /// Cancels every transfer, stops the thread and frees the multi handle. Call once.
    public func shutdown() {
        let already = shared.withLock { s -> Bool in
            defer { s.stopping = true }
            return s.stopping
        }
        guard !already else { return }
        _ = curl_multi_wakeup(multi.pointer)
        stopped.wait()
    }

    private func post(_ command: Command) {
        let accepted = shared.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.commands.append(command)
            return true
        }
        if accepted {
            _ = curl_multi_wakeup(multi.pointer)
        } else if case .start(let t) = command {
            t.delegate.transfer(t, didFinish: .failed(code: -1, message: "rangetap is shutting down"))
        }
    }

    private func run() {
        let m = multi.pointer
        var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        var running: Int32 = 0
        // Easy handles of finished HTTP/1 transfers, reset, for the next ones: a new handle
        // costs libcurl's whole state and its CURLOPT_BUFFERSIZE read buffer (256 KiB) per request.
        var idle: [UnsafeMutableRawPointer] = []

        func endRound(_ t: CurlTransfer) {
            if t.receivedInRound {
                t.receivedInRound = false
                t.delegate.transferDidEndRound(t)
            }
        }

        func finish(_ t: CurlTransfer, _ result: CurlResult) {
            guard !t.finished, let easy = t.easy else { return }
            endRound(t)
            t.finished = true
            if result != .ok, t.request.closeConnectionWhenEndedEarly {
                // A transfer ended early (the client left, or the origin went silent) must end at
                // the origin too. libcurl 7.88 queues an HTTP/2 stream's RST_STREAM in its send
                // buffer and sends it only with the connection's next frame (curl issue #17611,
                // fixed in 8.15): an origin then keeps the stream, flow-blocked, until its own
                // timeout. Forbidding the connection's reuse makes libcurl close it when no other
                // transfer uses it (`--upstream-multiplex` off, the default: always), which ends
                // the stream at once; while others use it, the RST leaves with the next frame
                // libcurl sends there. An HTTP/1 connection ended early is closed anyway.
                _ = ccurl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1)
            }
            curl_multi_remove_handle(m, easy)
            transfers.removeValue(forKey: easy)
            if let handle = t.detachHandle() {
                // Only a handle whose transfer completed goes back: one that failed (a name that
                // did not resolve, a refused connection, a timeout, an abort) keeps state that
                // `curl_easy_reset` leaves behind (libcurl 7.88 keeps its receive buffer, and then
                // refuses `CURLOPT_BUFFERSIZE` on the next transfer).
                if t.reusesHandles, case .ok = result, idle.count < Self.idleHandles {
                    curl_easy_reset(handle)
                    idle.append(handle)
                } else {
                    curl_easy_cleanup(handle)
                }
            }
            shared.withLock { $0.active = transfers.count }
            t.delegate.transfer(t, didFinish: result)
        }

        while true {
            let (commands, stopping) = shared.withLock { s -> ([Command], Bool) in
                defer { s.commands.removeAll() }
                return (s.commands, s.stopping)
            }
            for command in commands {
                switch command {
                case .start(let t):
                    var problem: String?
                    if t.reusesHandles, let handle = idle.popLast() {
                        problem = t.prepare(reusing: handle, sharing: sessions?.pointer)
                        if problem != nil {
                            // A reused handle that refuses an option is dropped; a fresh one
                            // decides whether the request itself is at fault.
                            t.release()
                            problem = t.prepare(sharing: sessions?.pointer)
                        }
                    } else {
                        problem = t.prepare(sharing: sessions?.pointer)
                    }
                    if let problem {
                        t.release()
                        t.delegate.transfer(t, didFinish: .failed(code: -1, message: problem))
                        continue
                    }
                    transfers[t.easy!] = t
                    t.lastActivity = CurlTransfer.now()
                    curl_multi_add_handle(m, t.easy)
                    shared.withLock { $0.active = transfers.count }
                case .cancel(let t):
                    finish(t, .cancelled)
                case .unpause(let t):
                    guard !t.finished, t.paused, let easy = t.easy else { continue }
                    t.paused = false
                    t.lastActivity = CurlTransfer.now()
                    t.delegate.transferWillResume(t)
                    // May call the write callback from inside, which may pause again or abort
                    // (the client went away meanwhile): then libcurl has failed the transfer and
                    // it must end here, not later as if it had completed.
                    t.deliveringHeld = true
                    // The sending stays paused if it was (the bitmask is the whole pause state).
                    let rc = curl_easy_pause(easy, t.sendPaused ? ccurl_pause_send : ccurl_pause_cont)
                    t.deliveringHeld = false
                    endRound(t)
                    if rc != CURLE_OK {
                        var text = t.errorText
                        if text.isEmpty { text = String(cString: curl_easy_strerror(rc)) }
                        finish(t, .failed(code: Int(rc.rawValue), message: text))
                    }
                case .unpauseSending(let t):
                    guard !t.finished, t.sendPaused, let easy = t.easy else { continue }
                    t.sendPaused = false
                    t.lastActivity = CurlTransfer.now()
                    // Calls the read callback from inside, which may pause the sending again.
                    let rc = curl_easy_pause(easy, t.paused ? ccurl_pause_recv : ccurl_pause_cont)
                    if rc != CURLE_OK {
                        var text = t.errorText
                        if text.isEmpty { text = String(cString: curl_easy_strerror(rc)) }
                        finish(t, .failed(code: Int(rc.rawValue), message: text))
                    }
                }
            }
            if stopping {
                for t in Array(transfers.values) { finish(t, .cancelled) }
                break
            }
            curl_multi_perform(m, &running)
            for t in transfers.values where t.receivedInRound { endRound(t) }
            var queued: Int32 = 0
            while let msg = curl_multi_info_read(m, &queued) {
                guard ccurl_msg_is_done(msg) != 0, let easy = ccurl_msg_easy_handle(msg), let t = transfers[easy] else {
                    continue
                }
                let code = ccurl_msg_result(msg)
                if code == CURLE_OK {
                    finish(t, .ok)
                } else {
                    var text = t.errorText
                    if text.isEmpty { text = String(cString: curl_easy_strerror(code)) }
                    finish(t, .failed(code: Int(code.rawValue), message: text))
                }
            }
            // Transfers that received nothing for their idle limit (paused ones wait for their
            // client, not for the origin).
            let now = CurlTransfer.now()
            // Nor do transfers waiting for their client's request body.
            for t in Array(transfers.values) where t.request.idleTimeoutMs > 0 && !t.paused && !t.sendPaused {
                let idle = now &- t.lastActivity
                if idle > UInt64(t.request.idleTimeoutMs) * 1_000_000 {
                    finish(
                        t,
                        .failed(
                            code: Self.idleTimeoutCode,
                            message:
                                "no data from upstream for \(idle / 1_000_000_000) s (the limit is \(Double(t.request.idleTimeoutMs) / 1000) s, --upstream-idle-timeout)"
                        ))
                }
            }
            curl_multi_poll(m, nil, 0, 250, nil)
        }
        for handle in idle { curl_easy_cleanup(handle) }
        curl_multi_cleanup(m)
        // Every easy handle is gone by now, so nothing is attached to the share any more.
        if let sessions { curl_share_cleanup(sessions.pointer) }
        stopped.signal()
    }
}

/// A C pointer that is only dereferenced on the multi thread (or via thread-safe libcurl calls).
struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}

/// `curl_global_init`, exactly once per process.
enum CurlGlobal {
    private static let result: Int = Int(curl_global_init(ccurl_global_default).rawValue)
    static func initialise() -> Int { result }
}
