import NIOCore
import NIOHTTP1
import NIOPosix
import RangeTapCore
import RangeTapTLS
import Synchronization

/// A capture served back as an HTTP/1.1 origin, for tests and demos.
///
/// ```swift
/// let server = try FixtureServer(capturePath: "captures/curl-ranges.rtap", mode: .ideal)
/// let port = try await server.start()      // port 0 picks a free one
/// // … point a client at http://127.0.0.1:\(port)/moov-at-end.mp4 …
/// await server.stop()
/// ```
///
/// - ``Mode/faithful`` answers each recorded request exactly as it was answered: the raw status
///   and header lines (case and bare-LF terminators kept), the body in the recorded chunk sizes
///   at the recorded pace, and the recorded drop or cancel.
/// - ``Mode/ideal`` serves the reassembled bytes of each resource with correct RFC 9110 range
///   handling (200, 206, multipart/byteranges, 416 for bytes never captured, HEAD).
public final class FixtureServer: Sendable {
    /// How requests are answered.
    public enum Mode: String, Sendable, CaseIterable {
        /// Replay each recorded exchange byte for byte, with its pacing, drops and cancels.
        case faithful
        /// Serve the captured bytes of each resource with correct range handling.
        case ideal
    }

    /// How ``Mode/faithful`` finds the recorded exchange for a request.
    public enum Matching: String, Sendable, CaseIterable {
        /// Host (from the absolute-form target or the `Host` header), method, path with query
        /// and Range value: a capture of two origins answers each with its own bytes. A host
        /// the capture never saw (the client named the server itself) matches any origin; the
        /// same host on another port matches that host.
        case hostAndPath = "host-path"
        /// Method, path with query and Range value, whatever the host.
        case path
    }

    /// What the server has answered so far.
    public struct Traffic: Sendable, Equatable {
        /// Requests answered (or being answered).
        public var requests = 0
        /// Body bytes written to clients (framing and heads not counted).
        public var bodyBytes: Int64 = 0
        /// Responses being written now.
        public var activeResponses = 0
        /// Requests the ideal origin refused (416 or 503) because the capture lacks their bytes.
        public var uncapturedRefusals = 0
        /// The last few of those refusals: the request and what the capture holds.
        public var recentRefusals: [String] = []

        /// No traffic.
        public init() {}
    }

    /// The capture served.
    public let capturePath: String
    /// How it answers.
    public let mode: Mode
    /// The address it binds.
    public let host: String
    /// Pacing factor for ``Mode/faithful``: 2 replays twice as fast, 0 without pauses.
    public let speed: Double
    private let requestedPort: Int
    private let responder: FixtureResponder
    private let serverChannel = Mutex<(any Channel)?>(nil)
    private let clients = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let boundPort = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let tls: TLSContext?
    private let log: RequestLog?

    /// Reads the capture at `capturePath`; nothing listens until ``start()``. `port` 0 picks a
    /// free port. `lineSink` receives one line per answered request.
    /// With `tls`, it answers over HTTPS (a context presenting a certificate the client trusts,
    /// such as one minted by rangetap's CA). With `logsRequests`, it keeps every answered
    /// request for ``requestLog()`` (tests; a long-running server would grow it without end).
    /// `matching` says how faithful mode finds a request's exchange (``Matching/hostAndPath``
    /// by default).
    public init(
        capturePath: String, mode: Mode = .faithful, host: String = "127.0.0.1", port: Int = 0, speed: Double = 1,
        tls: TLSContext? = nil, matching: Matching = .hostAndPath, logsRequests: Bool = false,
        lineSink: (@Sendable (String) -> Void)? = nil
    ) throws {
        self.tls = tls
        let log = logsRequests ? RequestLog() : nil
        self.log = log
        let reader: CaptureReader
        do {
            reader = try CaptureReader(path: capturePath)
        } catch {
            throw FixtureError.capture(error.description)
        }
        guard reader.header.bodies else { throw FixtureError.noBodies(capturePath) }
        let body = try BodyFile(path: reader.path + "/body.bin")
        switch mode {
        case .faithful:
            let exchanges: RecordedExchanges
            do {
                exchanges = try RecordedExchanges(reader: reader, matching: matching)
            } catch {
                throw FixtureError.capture("\(error)")
            }
            responder = FixtureResponder(
                exchanges: exchanges, body: body, speed: speed, lineSink: lineSink, requestLog: log)
        case .ideal:
            let index: ResourceIndex
            do {
                index = try ResourceIndex(reader: reader)
            } catch let e as FixtureError {
                throw e
            } catch {
                throw FixtureError.capture("\(error)")
            }
            responder = FixtureResponder(index: index, lineSink: lineSink, requestLog: log)
        }
        self.capturePath = capturePath
        self.mode = mode
        self.host = host
        self.speed = speed
        requestedPort = port
    }

    /// Binds and starts answering; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        let responder = self.responder
        let tls = self.tls
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addTLSServerHandlers(context: tls) }
                    // Requests are decoded by NIO; answers are written as raw bytes (no encoder),
                    // so recorded heads go out exactly as they were received.
                    try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try sync.addHandler(FixtureConnectionHandler(responder: responder))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: host, port: requestedPort).get()
        } catch {
            throw FixtureError.cannotListen("\(URLAuthority.hostForURL(host)):\(requestedPort)", error)
        }
        serverChannel.withLock { $0 = channel }
        let port = channel.localAddress?.port ?? requestedPort
        boundPort.store(port, ordering: .relaxed)
        return port
    }

    /// The bound port (0 before ``start()``).
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// `http://HOST:PORT`.
    public var url: String { "\(tls == nil ? "http" : "https")://\(URLAuthority.hostForURL(host)):\(port)" }

    /// Requests and body bytes served so far.
    public var traffic: Traffic { responder.traffic }

    /// The requests answered so far, in the order their answers began (empty unless made with
    /// `logsRequests`). Waits for the connections' event loops first, so bytes a client has
    /// received are counted. Requests that do not parse as HTTP/1.1 (answered 400) are not logged.
    public func requestLog() async -> [ServedRequest] {
        guard let log else { return [] }
        for channel in clients.withLock({ Array($0.values) }) {
            try? await channel.eventLoop.submit {}.get()
        }
        return log.snapshot
    }

    /// Stops listening and closes every connection. Idempotent.
    public func stop() async {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        if let channel = serverChannel.withLock({ $0 }) { try? await channel.close() }
        for channel in clients.withLock({ Array($0.values) }) {
            try? await channel.close()
        }
    }

    private func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        clients.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = clients.withLock { $0.removeValue(forKey: id) }
        }
    }
}
