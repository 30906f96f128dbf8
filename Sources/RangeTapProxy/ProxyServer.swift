import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import RangeTapCore
import RangeTapCurl
import RangeTapSystem
import RangeTapTLS
import Synchronization

/// The recording proxy: a SwiftNIO HTTP/1.1 listener for clients, libcurl for upstream, and a
/// capture writer. Usable from the command line and from tests (bind port 0, read
/// ``localPort``, ``stop()`` when done).
public final class ProxyServer: Sendable {
    /// The configuration it runs with.
    public let configuration: ProxyConfiguration
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let context: RecordingContext
    /// The capture file's writer (the context records through it as its ``CaptureSink``).
    private let captureWriter: CaptureWriter
    private let live: LiveLog
    private let serverChannel = Mutex<(any Channel)?>(nil)
    /// `rangetap shape`'s Unix socket (``ControlListener``), once bound.
    private let controlChannel = Mutex<(any Channel)?>(nil)
    private let clients = ClientRegistry()
    private let stopped = Mutex(false)
    /// The CA that signs intercepted hosts' certificates, when interception is on.
    public let certificateAuthority: CertificateAuthority?
    /// Whether ``certificateAuthority`` was created by this server (it did not exist).
    public let createdCertificateAuthority: Bool

    /// Creates the capture and the upstream engine; nothing listens until ``start()``.
    /// `lineSink` receives one line per finished exchange (the CLI prints them to stderr), the
    /// lines of one capture batch in one call, separated by newlines.
    public init(
        configuration: ProxyConfiguration, logger: Logger, lineSink: (@Sendable (String) -> Void)? = nil
    ) throws(ProxyError) {
        if !configuration.listensOnLoopback {
            let guarded = configuration.proxyCredentials != nil || !configuration.allowedClients.isEmpty
            guard configuration.allowRemote || guarded else { throw .remoteListenNotAllowed(configuration.listenHost) }
            guard guarded else { throw .openProxy(configuration.listenHost) }
        }
        try configuration.validateUpstream()
        if let file = configuration.upstreamCACertificates {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw .upstreamCACertificates(file, "cannot read it")
            }
            guard text.contains("-----BEGIN CERTIFICATE-----") else {
                throw .upstreamCACertificates(file, "it holds no certificate")
            }
        }
        // Before anything is written: a capture= source that cannot be read stops the start.
        let maps = configuration.mapRules.isEmpty ? nil : try MapRuleSet(configuration.mapRules)
        var keyLog: KeyLogFile?
        if let path = configuration.keyLogPath {
            do { keyLog = try KeyLogFile(path: path) } catch { throw .setup(error.description) }
            // libcurl's own sessions (upstream TLS) go to the same file.
            System.setEnvironment("SSLKEYLOGFILE", path)
        }
        var intercept: InterceptContexts?
        if let dir = configuration.caDirectory {
            do {
                let (authority, created) = try CertificateAuthority.loadOrCreate(in: dir)
                intercept = InterceptContexts(leaves: try LeafCertificates(authority: authority), keyLog: keyLog)
                certificateAuthority = authority
                createdCertificateAuthority = created
            } catch {
                throw .certificateAuthority(error.description)
            }
        } else {
            certificateAuthority = nil
            createdCertificateAuthority = false
        }
        self.configuration = configuration
        self.logger = logger
        let (clock, wallMicros) = MonotonicClock.anchoredToWallClock()
        let live = LiveLog(sink: lineSink)
        self.live = live
        let header = CaptureHeader(
            tool: "rangetap \(RangeTapVersion.current)", startedAt: UTCTimestamp.iso8601(micros: wallMicros),
            startedAtMicros: wallMicros, bodies: configuration.recordBodies, hashes: configuration.hashBodies,
            redacted: !configuration.keepSecrets, listen: "\(configuration.listenHost):\(configuration.listenPort)",
            upstream: configuration.upstream.map { URLRedaction.redactingUserinfo($0, if: !configuration.keepSecrets) })
        let writer: CaptureWriter
        do {
            writer = try CaptureWriter(
                path: configuration.capturePath, header: header, clock: clock,
                options: .init(
                    bodies: configuration.recordBodies, maxPendingBytes: configuration.effectiveCaptureBacklog),
                observer: { live.observe($0) }, onFailure: { live.captureStopped($0) })
        } catch {
            throw .setup(error.description)
        }
        let multi: CurlMulti
        do {
            multi = try CurlMulti(multiplex: configuration.upstreamMultiplex)
        } catch {
            writer.close()
            throw .setup(error.description)
        }
        captureWriter = writer
        context = RecordingContext(
            configuration: configuration, writer: writer, clock: clock, upstream: CurlUpstream(multi: multi),
            intercept: intercept, maps: maps)
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
    }

    /// Binds and starts accepting clients. Returns the bound port.
    @discardableResult
    public func start() async throws(ProxyError) -> Int {
        let context = self.context
        let clients = self.clients
        let sndbuf = configuration.clientSendBuffer
        // No child channel options: NIO applies those to every accepted channel through a chain of
        // futures, one option after another, about a quarter of the event loop's accept work on a
        // cold cache (docs/performance.md, "A fresh connection's own cost"); `configureClient`
        // sets them directly.
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                if let refusal = context.clientGate.refusal(of: channel.remoteAddress) {
                    // Not one of --allow-client's networks: closed before a byte is read.
                    context.clientGate.record(refusal, context: context)
                    return channel.close()
                }
                clients.track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try Self.configureClient(channel, sendBuffer: sndbuf)
                    try Self.addClientHandlers(to: channel, context: context)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: configuration.listenHost, port: configuration.listenPort).get()
        } catch {
            let host = URLAuthority.hostForURL(configuration.listenHost)
            throw .cannotListen("\(host):\(configuration.listenPort)", error)
        }
        serverChannel.withLock { $0 = channel }
        let port = channel.localAddress?.port ?? configuration.listenPort
        context.boundPort.store(port, ordering: .relaxed)
        do {
            try ControlToken.write(context.controlToken, port: port)
            let control = try await ControlListener.bind(port: port, group: group, context: context)
            controlChannel.withLock { $0 = control }
        } catch {
            // Recording goes on; only `rangetap shape` cannot change the link.
            logger.warning(
                "rangetap shape cannot reach this run: \(error) (\(ControlToken.socketPath(port: port)))")
        }
        logger.info(
            "listening",
            metadata: ["address": "\(configuration.listenHost):\(port)", "capture": "\(configuration.capturePath)"])
        return port
    }

    /// A client channel's options, set synchronously before its handlers are added: TCP_NODELAY;
    /// at most 4 reads per wake-up; EOF reaches ClientWireHandler as inputClosed (it reads
    /// the acknowledged bytes, then closes); `SO_SNDBUF` when `--client-sndbuf` gave one. Called on the
    /// channel's event loop.
    ///
    /// TCP_NODELAY is set on the accepted socket itself although Linux accepted sockets inherit it
    /// from the listener (where NIO's ServerBootstrap puts it): on this project's test VM, a
    /// connection whose socket never saw a `setsockopt` of its own carried 50 HTTP/2 streams about
    /// a fifth slower, its upstream transfers pausing some 1,800 times per 512 MiB instead of
    /// about 100 (docs/performance.md, "A fresh connection's own cost").
    static func configureClient(_ channel: any Channel, sendBuffer: Int?) throws {
        guard let options = channel.syncOptions else { throw ChannelError.operationUnsupported }
        try options.setOption(.tcpOption(.tcp_nodelay), value: 1)
        try options.setOption(.maxMessagesPerRead, value: 4)
        try options.setOption(.allowRemoteHalfClosure, value: true)
        if let sendBuffer {
            try options.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(sendBuffer))
        }
    }

    /// A client connection's pipeline, first to last: TCP accounting, then the HTTP handlers
    /// (``addHTTPHandlers(to:context:wire:session:names:)``). Called on the channel's event loop.
    static func addClientHandlers(to channel: any Channel, context: RecordingContext) throws {
        let wire = ClientWire()
        if let shape = context.shape {
            // Nearest the socket: everything sent to the client crosses the shaped link.
            try channel.pipeline.syncOperations.addHandler(ShapingHandler(control: shape), name: "rangetap-shape")
        }
        try channel.pipeline.syncOperations.addHandler(ClientWireHandler(wire: wire), name: "rangetap-wire")
        if !context.configuration.http1Only && context.configuration.proxyCredentials == nil {
            // h2c with prior knowledge: the HTTP/2 preface in place of a request. Not with
            // --proxy-auth: credentials are checked on HTTP/1.1 requests and CONNECTs.
            try channel.pipeline.syncOperations.addHandler(H2PrefaceSniffer(shared: context, wire: wire))
        }
        try addHTTPHandlers(
            to: channel.pipeline.syncOperations, context: context, wire: wire, session: .plain,
            names: TunnelStarter.httpHandlerNames)
    }

    /// The HTTP/1.1 handlers, added last, in order: the raw request-head tap, the response
    /// encoder, NIO's request decoder and pipelining, the protocol-error answers, and the proxy.
    /// The same handlers serve the plain listener and the inside of an intercepted tunnel.
    static func addHTTPHandlers(
        to sync: ChannelPipeline.SynchronousOperations, context: RecordingContext, wire: ClientWire,
        session: ClientSession, names: TunnelStarter.HandlerNames
    ) throws {
        let rawHeads = RawRequestHeads()
        let headTimeout =
            context.configuration.headTimeoutMs > 0
            ? TimeAmount.milliseconds(Int64(context.configuration.headTimeoutMs)) : nil
        try sync.addHandler(RawRequestTap(heads: rawHeads, headTimeout: headTimeout), name: names.rawHeads)
        let headSlot = ClientHeadSlot()
        try sync.addHandler(ClientResponseEncoder(slot: headSlot), name: names.encoder)
        try sync.addHandler(
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: names.decoder)
        try sync.addHandler(HTTPServerPipelineHandler(), name: names.pipelining)
        try sync.addHandler(ClientProtocolErrorHandler(), name: names.errors)
        try sync.addHandler(
            ProxyHandler(
                context: context, tunnels: TunnelStarter(shared: context, wire: wire), wire: wire, headSlot: headSlot,
                rawHeads: rawHeads, session: session), name: names.proxy)
    }

    /// Refuses every request through the proxy to `port` on this machine (the live web view,
    /// `record --web`), as it refuses requests to its own port.
    public func protectWebView(port: Int) {
        context.webPort.store(port, ordering: .relaxed)
    }

    /// Leaf certificates minted so far (0 without interception).
    public var mintedCertificates: Int { context.intercept?.leaves.minted ?? 0 }

    /// The bound port, once started.
    public var localPort: Int { context.boundPort.load(ordering: .relaxed) }

    /// This run's control token: what `rangetap shape` sends to change the link
    /// (``LinkControlRequest``) over ``ControlToken/socketPath(port:)``; also in
    /// ``ControlToken/path(port:)`` while the proxy listens.
    public var controlToken: String { context.controlToken }

    /// Totals so far.
    public var summary: RecordingSummary { live.summary }

    /// Upstream transfers in progress (for leak checks).
    public var activeUpstreamTransfers: Int { context.upstream.activeTransfers }

    /// Exchanges still held in memory (for leak checks): 0 once every exchange has ended and its
    /// connection is idle or closed.
    public var liveExchanges: Int { context.liveExchanges.load(ordering: .relaxed) }
    /// Body bytes held for clients now, all exchanges together (``BodyBudget``).
    public var bodyBytesHeld: Int { context.bodyBudget.bytesHeld }

    /// Open client connections (for leak checks).
    public var openClientConnections: Int { clients.count }

    /// Stops accepting, closes client connections (open exchanges are recorded as cancelled),
    /// stops libcurl, and closes the capture so it ends with complete events. Idempotent.
    public func stop() async {
        let already = stopped.withLock { s -> Bool in
            defer { s = true }
            return s
        }
        guard !already else { return }
        if let channel = serverChannel.withLock({ $0 }) {
            try? await channel.close()
        }
        if let channel = controlChannel.withLock({ $0 }) {
            try? await channel.close()
        }
        let open = clients.open
        for channel in open {
            channel.close(promise: nil)
            try? await channel.closeFuture.get()
            try? await channel.eventLoop.submit {}.get()
        }
        ControlToken.remove(context.controlToken, port: localPort)
        context.upstream.shutdown()
        // Transfers aborted above report back to their connections' event loops, where the
        // exchanges settle: let those tasks run before the capture closes.
        for loop in group.makeIterator() {
            try? await loop.submit {}.get()
        }
        captureWriter.close()
        try? await group.shutdownGracefully()
    }

    /// The capture writer's first write error, if any.
    public var captureWriteError: CaptureError? { captureWriter.writeError }

    /// Body bytes the capture writer may hold before the upstream is held back
    /// (``ProxyConfiguration/effectiveCaptureBacklog``).
    public var captureBacklog: Int { captureWriter.backlogLimit }

    /// Waits until the capture on disk holds what has happened so far: the tasks already queued
    /// on the event loops run, then the writer writes everything queued. Exchanges still in
    /// progress stay open in the capture; recording goes on (for tests reading it mid-run).
    public func flushCapture() async {
        for loop in group.makeIterator() {
            try? await loop.submit {}.get()
        }
        captureWriter.flush()
    }
}
