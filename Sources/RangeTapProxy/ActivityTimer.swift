import NIOCore

/// A timeout measured from the last activity, for `--idle-timeout` and `--body-timeout`:
/// activity only stamps the time (``touch()``), and one scheduled task, re-armed for what is
/// left when it fires early, decides. So a connection that reads a body part every millisecond
/// costs a clock reading each, not a cancelled and rescheduled task each. Event loop only.
final class ActivityTimer {
    private let limit: TimeAmount
    private let loop: any EventLoop
    private var last: NIODeadline
    private var task: Scheduled<Void>?
    private var stops = false

    /// A stopped timer of `limit` on `loop`.
    init(limit: TimeAmount, loop: any EventLoop) {
        self.limit = limit
        self.loop = loop
        last = .now()
    }

    /// Notes activity now.
    func touch() { last = .now() }

    /// Whether the timer runs.
    var isRunning: Bool { task != nil }

    /// Starts counting from now: `expired` runs once nothing touched the timer for the whole
    /// limit while `counts()` said the time counts. When it says no, the timer stops if
    /// `stopsWhenNot`, else that time counts as activity and it waits on.
    func start(stopsWhenNot: Bool = false, counts: @escaping () -> Bool, expired: @escaping () -> Void) {
        touch()
        stops = stopsWhenNot
        schedule(in: limit, counts: counts, expired: expired)
    }

    /// Stops it; nothing runs.
    func stop() {
        task?.cancel()
        task = nil
    }

    private func schedule(in delay: TimeAmount, counts: @escaping () -> Bool, expired: @escaping () -> Void) {
        let me = NIOLoopBound(self, eventLoop: loop)
        let callbacks = NIOLoopBound((counts, expired), eventLoop: loop)
        task = loop.scheduleTask(in: delay) {
            let (counts, expired) = callbacks.value
            me.value.fire(counts: counts, expired: expired)
        }
    }

    private func fire(counts: @escaping () -> Bool, expired: @escaping () -> Void) {
        task = nil
        guard counts() else {
            if stops { return }
            touch()
            schedule(in: limit, counts: counts, expired: expired)
            return
        }
        let quiet = NIODeadline.now() - last
        if quiet >= limit {
            expired()
        } else {
            schedule(in: limit - quiet, counts: counts, expired: expired)
        }
    }
}

extension ActivityTimer {
    /// What a request body that timed out is recorded and answered with: the limit, what had
    /// arrived of what was declared, and `then`, what rangetap did.
    static func bodyTimeoutMessage(limit: TimeAmount, got: Int, declared: String?, then: String) -> String {
        "the request body received nothing for \(Double(limit.nanoseconds) / 1e9) s (--body-timeout; \(got)\(declared.map { " of \($0)" } ?? "") bytes had arrived); \(then)"
    }
}

@available(*, unavailable)
extension ActivityTimer: Sendable {}
