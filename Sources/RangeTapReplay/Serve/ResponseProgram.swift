import NIOCore

/// What the fixture does to answer one request, step by step, so the connection handler can
/// carry it out on its event loop (pauses as scheduled tasks, one write in flight at a time)
/// without depending on Swift's cooperative thread pool, which a test may be blocking.
struct ResponseProgram: Sendable {
    /// One step.
    enum Step: Sendable {
        /// Wait until this time.
        case pause(until: NIODeadline)
        /// Write these bytes; `body` of them are body bytes (for the traffic counters).
        case send([UInt8], body: Int)
        /// Write `count` bytes of `body.bin` at `offset`, framed as an HTTP chunk if `chunked`.
        case sendRecorded(offset: Int64, count: Int, chunked: Bool)
        /// Write the capture's bytes of `range` of the resource at `path` (read in pieces).
        case sendResource(path: String, range: Range<Int64>)
    }

    /// The steps in order.
    var steps: [Step]
    /// Whether the connection stays open for another request afterwards.
    var keepAlive: Bool
    /// The line for the log once the answer is written.
    var summary: String
    /// The status sent, for the request log; nil when the connection closes without a head.
    var status: Int?
    /// Set when the answer refuses bytes the capture never held: what was missing.
    var uncaptured: String?
}
