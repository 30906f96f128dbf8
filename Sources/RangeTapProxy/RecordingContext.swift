import NIOCore
import RangeTapCore
import RangeTapCurl
import Synchronization

/// What every connection and exchange of one recording shares.
final class RecordingContext: Sendable {
    let configuration: ProxyConfiguration
    let writer: CaptureWriter
    let clock: MonotonicClock
    let multi: CurlMulti
    let allocator = ByteBufferAllocator()
    private let exchangeIDs = Atomic<Int>(0)
    private let connectionIDs = Atomic<Int>(0)
    /// The bound port (for loop detection).
    let boundPort = Atomic<Int>(0)
    /// ``Exchange`` objects alive (for leak checks).
    let liveExchanges = Atomic<Int>(0)

    init(configuration: ProxyConfiguration, writer: CaptureWriter, clock: MonotonicClock, multi: CurlMulti) {
        self.configuration = configuration
        self.writer = writer
        self.clock = clock
        self.multi = multi
    }

    func nextExchangeID() -> Int { exchangeIDs.add(1, ordering: .relaxed).newValue }
    func nextConnectionID() -> Int { connectionIDs.add(1, ordering: .relaxed).newValue }

    /// Lines as the capture stores them: secrets redacted unless the user keeps them.
    func redact(_ lines: [HeaderLine]) -> [HeaderLine] {
        configuration.keepSecrets ? lines : lines.redactingSecrets()
    }
}
