import Synchronization

/// The requests a ``FixtureServer`` answered, in the order their answers began, shared by its
/// connections. Entries are added when an answer starts and updated as its writes complete.
final class RequestLog: Sendable {
    private let entries = Mutex<[ServedRequest]>([])

    /// An empty log.
    init() {}

    /// The entries so far.
    var snapshot: [ServedRequest] { entries.withLock { $0 } }

    /// Logs the start of the answer to `request`; returns its entry's index.
    func begin(_ request: FixtureRequest, status: Int?) -> Int {
        entries.withLock {
            $0.append(
                ServedRequest(
                    method: request.method, path: request.path, range: request.range, status: status, bodyBytes: 0,
                    isComplete: false))
            return $0.count - 1
        }
    }

    /// `bytes` more body bytes of entry `index` were written; `complete` once nothing is left.
    func wrote(_ index: Int, bytes: Int, complete: Bool) {
        entries.withLock {
            $0[index].bodyBytes += Int64(bytes)
            if complete { $0[index].isComplete = true }
        }
    }
}
