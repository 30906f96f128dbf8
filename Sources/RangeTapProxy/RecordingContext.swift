import NIOCore
import RangeTapTLS
import RangeTapCore
import RangeTapCurl
import Synchronization

/// What every connection and exchange of one recording shares.
final class RecordingContext: Sendable {
    let configuration: ProxyConfiguration
    let writer: CaptureWriter
    let clock: MonotonicClock
    let multi: CurlMulti
    /// TLS contexts for intercepted tunnels; nil when tunnels stay opaque.
    let intercept: InterceptContexts?
    let allocator = ByteBufferAllocator()
    /// Which https origins speak HTTP/2 (asked before a client is offered `h2`).
    let originProtocols = OriginProtocols()
    private let exchangeIDs = Atomic<Int>(0)
    private let connectionIDs = Atomic<Int>(0)
    /// The bound port (for loop detection).
    let boundPort = Atomic<Int>(0)
    /// ``Exchange`` objects alive (for leak checks).
    let liveExchanges = Atomic<Int>(0)

    init(configuration: ProxyConfiguration, writer: CaptureWriter, clock: MonotonicClock, multi: CurlMulti, intercept: InterceptContexts?) {
        self.intercept = intercept
        self.configuration = configuration
        self.writer = writer
        self.clock = clock
        self.multi = multi
    }

    func nextExchangeID() -> Int { exchangeIDs.add(1, ordering: .relaxed).newValue }
    func nextConnectionID() -> Int { connectionIDs.add(1, ordering: .relaxed).newValue }

    /// Whether a CONNECT to `host` is intercepted (a CA is set and no `--no-intercept` names it).
    func intercepts(_ host: String) -> Bool {
        intercept != nil && !configuration.noIntercept.contains { $0.matches(host) }
    }

    /// Lines as the capture stores them: secrets redacted unless the user keeps them.
    func redact(_ lines: [HeaderLine]) -> [HeaderLine] {
        configuration.keepSecrets ? lines : lines.redactingSecrets()
    }
}
