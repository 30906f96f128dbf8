import Foundation
import RangeTapSystem

/// Writes a capture directory (`events.jsonl` + `body.bin`) on a thread of its own.
///
/// Producers (the upstream thread and the event loops) only append to a queue. Body bytes are bounded by
/// ``Options/maxPendingBytes``: when the disk is slower than the network by more than that, ``recordChunk(_:bytes:)``
/// (called on the upstream thread) waits after queueing its chunk, which holds libcurl back. ``record(_:)`` never
/// waits, so an event loop is never blocked by the disk; events are small and come at the pace of requests and
/// connections. The writer thread hashes body bytes per exchange (filling `sha256` into the end, cancel and error
/// events), writes body bytes before the event lines that point at them, and issues one `writev(2)` for the body bytes
/// and one `write(2)` for the lines of a batch, so a capture killed at any instant is readable up to its last complete
/// line.
///
/// Batches: the writer waits ``Options/batchDelay`` before it takes each batch from the queue
/// (not when body bytes are piling up, nor on ``flush()`` or ``close()``), so that a player's many
/// small exchanges cost one wake-up and two system calls per batch rather than per event. Events
/// keep the times the producers stamped.
public final class CaptureWriter: @unchecked Sendable {
    /// Recording options.
    public struct Options: Sendable {
        /// Store body bytes in `body.bin` (false: hashes and timings only).
        public var bodies: Bool
        /// Body bytes that may wait for the disk before producers are held back.
        public var maxPendingBytes: Int
        /// How long the writer lets items gather before it takes a batch (zero: at once).
        /// It never waits while ``batchBypassBytes`` or more body bytes are pending.
        public var batchDelay: Duration
        /// Pending body bytes at which the writer stops gathering and writes at once.
        public var batchBypassBytes: Int

        /// Creates options.
        public init(
            bodies: Bool = true, maxPendingBytes: Int = 4 << 20, batchDelay: Duration = .milliseconds(2),
            batchBypassBytes: Int = 256 << 10
        ) {
            self.bodies = bodies
            self.maxPendingBytes = maxPendingBytes
            self.batchDelay = batchDelay
            self.batchBypassBytes = batchBypassBytes
        }
    }

    private enum Item {
        case event(CaptureEvent)
        case chunk(ChunkEvent, any CaptureBytes)
    }

    /// The capture directory.
    public let path: String
    /// The clock all events are stamped with.
    public let clock: MonotonicClock
    private let options: Options
    private let observer: (@Sendable ([CaptureEvent]) -> Void)?
    private let onFailure: (@Sendable (CaptureError) -> Void)?

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Item] = []
    private var pendingBytes = 0
    private var closing = false
    private var failure: CaptureError?
    /// Items queued since the start, and items the writer thread has dealt with (for ``flush()``).
    private var queuedItems = 0
    private var handledItems = 0
    private var writerDone = false
    /// The writer thread waits for the queue to fill: producers must wake it.
    private var writerIdle = false
    /// Callers of ``flush()`` waiting: the writer does not gather.
    private var flushWaiters = 0
    /// The writer thread waits ``Options/batchDelay`` on `gatherWake` for more items.
    private var writerGathering = false
    private var batches = 0
    /// Ends a gathering wait early (monotonic timeout, unlike `NSCondition`'s wall-clock one).
    private let gatherWake = DispatchSemaphore(value: 0)
    /// ``Options/batchDelay`` as the semaphore's timeout; nil when zero (no gathering).
    private let gatherTimeout: DispatchTimeInterval?

    // Owned by the writer thread.
    private var eventsFD: Int32
    private var bodyFD: Int32
    private var bodyLength: Int64 = 0
    private var stoppedByFailure = false
    private var hashers: [Int: SHA256Hasher] = [:]
    /// Whether body bytes are hashed (the header's `hashes`; false with `--no-hash`).
    private let hashes: Bool
    /// Whether chunks' bytes are used at all: stored in `body.bin` or hashed.
    private let needsBytes: Bool
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// Creates `path` (which must not exist yet, or be an empty directory), writes the header and starts the writer
    /// thread. `observer` sees every event, on the writer thread, after it is on disk: the events of each batch the
    /// writer wrote, in order, in one call (a player's many small exchanges share batches; see ``Options/batchDelay``).
    /// `onFailure` is called once, on the writer thread, when a write fails: recording stops there (see
    /// ``writeError``).
    public init(
        path: String, header: CaptureHeader, clock: MonotonicClock, options: Options = Options(),
        observer: (@Sendable ([CaptureEvent]) -> Void)? = nil, onFailure: (@Sendable (CaptureError) -> Void)? = nil
    ) throws(CaptureError) {
        self.path = path
        self.clock = clock
        self.options = options
        let (seconds, attoseconds) = options.batchDelay.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let delay =
            nanoseconds.overflow
            ? Int64.max : nanoseconds.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
        self.gatherTimeout = delay > 0 ? .nanoseconds(Int(clamping: delay)) : nil
        self.observer = observer
        self.onFailure = onFailure
        self.hashes = header.hashes
        self.needsBytes = options.bodies || header.hashes
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue, (try? fm.contentsOfDirectory(atPath: path))?.isEmpty == true else {
                throw .cannotCreate(path: path, reason: "it already exists and is not an empty directory")
            }
        } else {
            // mkdir(2) per component rather than Foundation, whose errors name no cause
            // ("The file doesn't exist.", "NSCocoaErrorDomain error 512").
            if let reason = Self.makeDirectories(path) {
                throw .cannotCreate(path: path, reason: reason)
            }
        }
        var events: Int32 = -1
        var body: Int32 = -1
        do throws(SystemError) {
            events = try System.openForAppending(path + "/events.jsonl")
            if options.bodies { body = try System.openForAppending(path + "/body.bin") }
        } catch {
            if events >= 0 { System.close(events) }
            throw .cannotCreate(path: path, reason: error.text)
        }
        eventsFD = events
        bodyFD = body
        if let error = Self.writeAll(eventsFD, CaptureEvent.header(header).jsonLine()) {
            throw .writeFailed(path: path, reason: error)
        }
        let t = Thread { [unowned self] in self.run() }
        t.name = "rangetap-capture-writer"
        thread = t
        t.start()
    }

    /// Creates `path` and its missing parents; nil, or why not in words naming the component.
    static func makeDirectories(_ path: String) -> String? {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if let status = System.status(current) {
                if status.kind != .directory { return "\(current) is not a directory" }
                continue
            }
            do throws(SystemError) {
                try System.makeDirectory(current, mode: 0o755)
            } catch {
                return "cannot make the directory \(current): \(error.text)"
            }
        }
        return nil
    }

    /// Queues an event. End, cancel and error events with an empty `sha256` get the hash of
    /// the exchange's body bytes filled in.
    /// Never waits for the disk.
    public func record(_ event: CaptureEvent) {
        enqueue(.event(event), bytes: 0)
    }

    /// Queues a body chunk; its `bodyOffset` is assigned by the writer. When more than
    /// ``Options/maxPendingBytes`` of body bytes are then waiting for the disk, waits until they
    /// are fewer (the chunk is already queued, so events recorded meanwhile stay after it).
    /// With neither bodies nor hashes (`--no-bodies --no-hash`) the bytes are not kept: the
    /// chunk is an event like any other, gathered into a batch, and never waits.
    public func recordChunk(_ chunk: ChunkEvent, bytes: some CaptureBytes) {
        enqueue(.chunk(chunk, needsBytes ? bytes : Self.noBytes), bytes: backlogBytes(of: chunk))
    }

    /// What a chunk counts in the backlog: its size when its bytes are used (stored in
    /// `body.bin` or hashed), else nothing.
    private func backlogBytes(of chunk: ChunkEvent) -> Int { needsBytes ? chunk.size : 0 }
    /// What a chunk carries when its bytes are not used.
    private static let noBytes: [UInt8] = []

    /// The first write error, if writing failed. Recording stopped at that point: the capture
    /// holds every event up to the last one fully written (a chunk line is only written after
    /// its bytes), and nothing after, so no line points at bytes that are not in `body.bin`.
    public var writeError: CaptureError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Batches the writer thread has taken from the queue so far: each cost it one wake-up, one
    /// `writev(2)` of body bytes and one `write(2)` of event lines.
    public var batchesWritten: Int {
        condition.lock()
        defer { condition.unlock() }
        return batches
    }

    /// ``Options/maxPendingBytes``: how many body bytes may wait before producers are held back.
    public var backlogLimit: Int { options.maxPendingBytes }

    /// Body bytes queued and not yet written.
    public var pendingBodyBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return pendingBytes
    }

    /// Waits until everything queued before the call is on disk and seen by the observer (or
    /// recording stopped: closed, or stopped by a write error). Recording goes on.
    public func flush() {
        condition.lock()
        defer { condition.unlock() }
        let target = queuedItems
        flushWaiters += 1
        if writerIdle { condition.broadcast() }
        wakeGatherer()
        while handledItems < target && !writerDone { condition.wait() }
        flushWaiters -= 1
    }

    /// Writes everything queued, closes the files and stops the thread. Idempotent.
    public func close() {
        condition.lock()
        let wasClosing = closing
        closing = true
        condition.broadcast()
        wakeGatherer()
        condition.unlock()
        if !wasClosing { finished.wait() }
    }

    /// Appends `item`; an item carrying body bytes then waits while too many are pending.
    private func enqueue(_ item: Item, bytes: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard !closing else { return }
        queue.append(item)
        queuedItems += 1
        pendingBytes += bytes
        // Only an idle writer needs waking (one gathering a batch looks again when its delay is
        // over). Broadcast: flush() and held-back producers wait on the same condition.
        if writerIdle { condition.broadcast() }
        if bodyBytesPileUp { wakeGatherer() }
        guard bytes > 0 else { return }
        while pendingBytes > options.maxPendingBytes && !closing && !writerDone {
            condition.wait()
        }
    }

    private func run() {
        var lines: [UInt8] = []
        lines.reserveCapacity(1 << 16)
        while true {
            condition.lock()
            while queue.isEmpty && !closing {
                writerIdle = true
                condition.wait()
            }
            writerIdle = false
            // Before every batch, not only after an idle spell: a writer that found items already
            // queued (it started late, or they came while it wrote) gathers too.
            let timeout = !closing && flushWaiters == 0 && !bodyBytesPileUp ? gatherTimeout : nil
            writerGathering = timeout != nil
            condition.unlock()
            if let timeout {
                _ = gatherWake.wait(timeout: .now() + timeout)
                condition.lock()
                writerGathering = false
                condition.unlock()
                // A wake-up that came as the wait timed out is still counted: take it back.
                while gatherWake.wait(timeout: .now()) == .success {}
            }
            condition.lock()
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            if !batch.isEmpty { batches += 1 }
            let done = closing && batch.isEmpty
            condition.unlock()
            if done { break }
            let batchBytes = batch.reduce(0) { if case .chunk(let c, _) = $1 { $0 + backlogBytes(of: c) } else { $0 } }
            if stoppedByFailure {
                release(batchBytes, items: batch.count)
                continue
            }

            var written: [CaptureEvent] = []
            written.reserveCapacity(batch.count)
            lines.removeAll(keepingCapacity: true)
            // Body bytes go to body.bin in groups of up to `writeGroupBytes`, one writev(2) each,
            // each group hashed just before it is written, while its bytes are still in cache.
            let bodyStart = bodyLength
            var group: [any CaptureBytes] = []
            var groupBytes = 0
            func writeGroup() {
                defer {
                    group.removeAll(keepingCapacity: true)
                    groupBytes = 0
                }
                guard bodyFD >= 0, !group.isEmpty, !stoppedByFailure else { return }
                let (count, error) = Self.writeAll(bodyFD, group)
                bodyLength += Int64(count)
                if let error { fail("body.bin: \(error)") }
            }
            for case .chunk(let chunk, let bytes) in batch {
                if hashes {
                    bytes.withCaptureBytes {
                        hashers[chunk.exchange, default: SHA256Hasher()].update(bufferPointer: $0)
                    }
                }
                group.append(bytes)
                groupBytes += chunk.size
                if groupBytes >= Self.writeGroupBytes || group.count == Self.maxIOVectors { writeGroup() }
            }
            writeGroup()
            var chunkEnd = bodyStart
            items: for item in batch {
                switch item {
                case .chunk(var chunk, let bytes):
                    chunk.bodyOffset = nil
                    if bodyFD >= 0 {
                        chunk.bodyOffset = chunkEnd
                        chunkEnd += Int64(bytes.captureByteCount)
                        // A chunk whose bytes did not all reach body.bin is not written, nor
                        // anything after it.
                        if chunkEnd > bodyLength { break items }
                    }
                    let e = CaptureEvent.chunk(chunk)
                    lines.append(contentsOf: e.jsonLine())
                    written.append(e)
                case .event(let event):
                    let e = finishHash(event)
                    lines.append(contentsOf: e.jsonLine())
                    written.append(e)
                }
            }
            if !lines.isEmpty, let error = Self.writeAll(eventsFD, lines) { fail("events.jsonl: \(error)") }
            if let observer, !stoppedByFailure, !written.isEmpty { observer(written) }
            release(batchBytes, items: batch.count)
        }
        if eventsFD >= 0 { System.close(eventsFD) }
        if bodyFD >= 0 { System.close(bodyFD) }
        eventsFD = -1
        bodyFD = -1
        condition.lock()
        writerDone = true
        condition.broadcast()
        condition.unlock()
        finished.signal()
    }

    /// The event with its exchange's SHA-256 filled in; as it is without hashing (`--no-hash`:
    /// `end` and `cancel` keep an empty `sha256`, `error` none).
    private func finishHash(_ event: CaptureEvent) -> CaptureEvent {
        guard hashes else { return event }
        func digest(_ ex: Int) -> String {
            let d = (hashers.removeValue(forKey: ex) ?? SHA256Hasher()).finalize()
            return HexText.lowercase(d)
        }
        switch event {
        case .end(var e) where e.sha256.isEmpty:
            e.sha256 = digest(e.exchange)
            return .end(e)
        case .cancel(var e) where e.sha256.isEmpty:
            e.sha256 = digest(e.exchange)
            return .cancel(e)
        case .error(var e) where e.exchange != nil && e.sha256 == nil:
            e.sha256 = digest(e.exchange!)
            return .error(e)
        default:
            return event
        }
    }

    /// Under the lock: whether enough body bytes wait that the writer must not gather (past
    /// ``Options/batchBypassBytes``, or holding producers back).
    private var bodyBytesPileUp: Bool {
        pendingBytes >= options.batchBypassBytes || pendingBytes > options.maxPendingBytes
    }

    /// Under the lock: ends the writer's gathering wait, if it is in one.
    private func wakeGatherer() {
        guard writerGathering else { return }
        writerGathering = false
        gatherWake.signal()
    }

    /// Writer thread: `items` queued items holding `n` body bytes are dealt with; producers and
    /// ``flush()`` may go on.
    private func release(_ n: Int, items: Int) {
        condition.lock()
        pendingBytes -= n
        handledItems += items
        condition.broadcast()
        condition.unlock()
    }

    /// Writer thread: the first failure stops recording.
    private func fail(_ reason: String) {
        guard !stoppedByFailure else { return }
        stoppedByFailure = true
        let error = CaptureError.writeFailed(path: path, reason: reason)
        condition.lock()
        if failure == nil { failure = error }
        condition.unlock()
        onFailure?(error)
    }

    /// Writes all bytes, retrying short writes; returns an error text on failure.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Writes the bytes of `chunks` (at most ``maxIOVectors``) in order with `writev(2)`,
    /// retrying short writes; returns how many bytes reached the file and the error text, if any.
    private static func writeAll(_ fd: Int32, _ chunks: [any CaptureBytes]) -> (count: Int, error: String?) {
        withBuffers(chunks[...]) { writeVectors(fd, $0) }
    }

    /// Chunks in one group, one `writev(2)`: well under every system's `IOV_MAX` (1024 on Linux).
    static let maxIOVectors = 256
    /// Body bytes hashed and then written as one group: small enough to stay in the CPU's cache
    /// between the hash and the copy into the page cache.
    static let writeGroupBytes = 256 << 10

    /// Calls `body` with the raw bytes of every element of `chunks`, all valid at once.
    private static func withBuffers<R>(
        _ chunks: ArraySlice<any CaptureBytes>, _ gathered: [UnsafeRawBufferPointer] = [],
        _ body: ([UnsafeRawBufferPointer]) -> R
    ) -> R {
        guard let first = chunks.first else { return body(gathered) }
        return first.withCaptureBytes { raw in
            var next = gathered
            if next.isEmpty { next.reserveCapacity(chunks.count) }
            next.append(raw)
            return withBuffers(chunks.dropFirst(), next, body)
        }
    }

    /// `writev(2)` of all `buffers`, retrying short writes and EINTR.
    private static func writeVectors(_ fd: Int32, _ buffers: [UnsafeRawBufferPointer]) -> (count: Int, error: String?) {
        let (count, error) = System.writeAll(fd, gathering: buffers)
        return (count, error?.text)
    }

    private static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) -> String? {
        do throws(SystemError) {
            try System.writeAll(fd, raw)
            return nil
        } catch {
            return error.text
        }
    }
}
