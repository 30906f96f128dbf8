import NIOCore
import RangeTapTLS
import RangeTapCore
import RangeTapCurl
import Synchronization

/// What every connection and exchange of one recording shares.
final class RecordingContext: Sendable {
    let configuration: ProxyConfiguration
    /// Where events are recorded: the capture's writer.
    let writer: any CaptureSink
    /// The recording's clock.
    let clock: any CaptureClock
    /// Where exchanges' upstream halves come from: libcurl.
    let upstream: any UpstreamConnector
    /// TLS contexts for intercepted tunnels; nil when tunnels stay opaque.
    let intercept: InterceptContexts?
    /// Where the rounds of upstream transfers come from.
    let allocator = RoundBufferPool.allocator
    /// Body bytes held for clients, across every exchange (`--body-memory`).
    let bodyBudget: BodyBudget
    /// Which https origins speak HTTP/2 (asked before a client is offered `h2`).
    let originProtocols: OriginProtocols
    private let exchangeIDs = Atomic<Int>(0)
    private let connectionIDs = Atomic<Int>(0)
    /// The bound port (for loop detection).
    let boundPort = Atomic<Int>(0)
    /// The live web view's port (`record --web`), 0 when there is none: no request through the
    /// proxy may reach it.
    let webPort = Atomic<Int>(0)
    /// ``Exchange`` objects alive (for leak checks).
    let liveExchanges = Atomic<Int>(0)
    /// The `--fault` rules with their match counts; nil when there are none.
    let faults: FaultRuleSet?
    /// The `--map` rules, nil when there are none.
    let maps: MapRuleSet?
    /// The client link's shaping (`--shape`, `--shape-trace`); nil when the link is left alone.
    let shape: ShapeControl?
    /// Which clients may connect (`--allow-client`).
    let clientGate: ClientGate

    /// The one origin a reverse proxy serves (`--upstream` without `--forward`); nil when
    /// requests for any origin are proxied.
    var confinedTo: String? { configuration.forward ? nil : configuration.upstream }

    /// Where a request target of a client in `session` goes (``RequestTarget/resolve``): to the
    /// intercepted tunnel's origin, or this recording's `--upstream` (and, without `--forward`,
    /// nowhere else); never back to the proxy.
    func resolve(_ target: String, in session: ClientSession) -> Result<String, RequestTarget.Refusal> {
        let tunnel = session.origin != nil
        let resolved = RequestTarget.resolve(
            target, upstream: session.origin ?? configuration.upstream, ownPort: boundPort.load(ordering: .relaxed),
            listenHost: configuration.listenHost, confinedTo: tunnel ? nil : confinedTo,
            upstreamName: tunnel ? "the tunnel's origin" : "--upstream")
        if webPort.load(ordering: .relaxed) > 0, case .success(let url) = resolved,
            let authority = RequestTarget.authority(of: url),
            reachesWebView(authority, https: HTTPScheme(url: url) == .https)
        {
            return .failure(RequestTarget.Refusal(status: .forbidden, message: Self.webViewRefusal(url)))
        }
        return resolved
    }

    /// Whether `host:port` is the live web view's listener (on any address of this machine).
    func reachesWebView(host: String, port: Int) -> Bool {
        let web = webPort.load(ordering: .relaxed)
        // Any address of this machine on that port: the web view may listen on all of them.
        return web > 0 && ProxyAddress.reachesProxy(host: host, port: port, ownPort: web, listenHost: "0.0.0.0")
    }

    private func reachesWebView(_ authority: String, https: Bool) -> Bool {
        let (host, port) = RequestTarget.hostAndPort(authority, https: https)
        return reachesWebView(host: host, port: port)
    }

    /// What a request for the web view through the proxy is told.
    static func webViewRefusal(_ target: String) -> String {
        "\(URLRedaction.redactingUserinfo(target)) is rangetap's live web view, which is never reachable through the proxy; open it directly"
    }

    /// The secret `rangetap shape` shows to change the link (``ControlToken``).
    let controlToken: String

    init(
        configuration: ProxyConfiguration, writer: any CaptureSink, clock: any CaptureClock,
        upstream: any UpstreamConnector, intercept: InterceptContexts?, controlToken: String = ControlToken.generate(),
        maps: MapRuleSet? = nil
    ) {
        self.controlToken = controlToken
        clientGate = ClientGate(networks: configuration.allowedClients)
        bodyBudget = BodyBudget(limit: configuration.bodyMemory)
        originProtocols = OriginProtocols(
            insecure: configuration.insecureUpstream, extraCAFile: configuration.upstreamCACertificates)
        self.intercept = intercept
        self.configuration = configuration
        self.writer = writer
        self.clock = clock
        self.upstream = upstream
        faults = configuration.faultRules.isEmpty ? nil : FaultRuleSet(configuration.faultRules)
        self.maps = maps
        shape = configuration.shape.map { ShapeControl(spec: $0, clock: clock) }
        if let spec = configuration.shape {
            writer.record(.shape(ShapeEvent(t: clock.now(), spec: spec.description, trace: spec.traceName)))
        }
    }

    /// Changes the shaping while recording (`rangetap shape`), and records the change.
    func reshape(_ spec: ShapeSpec) throws(LabSpecError) {
        guard let shape else {
            throw .conflict(
                "this recording was started without --shape: start it with --shape (--shape off to begin unshaped) to change the link while recording"
            )
        }
        try shape.update(spec)
        writer.record(.shape(ShapeEvent(t: clock.now(), spec: spec.description, trace: spec.traceName)))
    }

    /// The faults to inject into a request for `url`, nil when no rule fires.
    func faultPlan(url: String, method: String, hasRange: Bool) -> FaultPlan? {
        guard let faults else { return nil }
        let (host, path) = FaultPlan.hostAndPath(url: url)
        return FaultPlan(rules: faults.firing(host: host, path: path, method: method, hasRange: hasRange))
    }

    /// The `--map` rule that answers a request for `url` instead of its origin, if one fires.
    func mapping(url: String, method: String, hasRange: Bool) -> (rule: MapRule, maps: MapRuleSet)? {
        guard let maps else { return nil }
        let (host, path) = FaultPlan.hostAndPath(url: url)
        return maps.firing(host: host, path: path, method: method, hasRange: hasRange).map { ($0, maps) }
    }

    /// Records that a fault rule acted on `exchange`.
    func recordFault(exchange: Int, rule: String, action: String, detail: String, lines: [HeaderLine]? = nil) {
        writer.record(
            .fault(
                FaultEvent(
                    t: clock.now(), exchange: exchange, rule: rule, action: action, detail: detail,
                    lines: lines.map(redact))))
    }

    /// What the read buffers of all transfers together are sized to (``upstreamReadSize()``).
    static let readMemory = 8 << 20

    /// The read size (`CURLOPT_BUFFERSIZE`) of a transfer starting now: ``readMemory`` over the
    /// exchanges alive, between 16 KiB and the configured size (256 KiB up to 32 exchanges).
    ///
    /// Why: libcurl 7.88 gives every transfer a receive buffer of this size, and a transfer
    /// paused for its client keeps a copy of the rest of its last read besides: 500 streams a
    /// client never read held 0.26–0.47 MiB each beyond the body budget with 256 KiB reads.
    func upstreamReadSize() -> Int {
        let largest = configuration.upstreamBufferSize
        let live = max(1, liveExchanges.load(ordering: .relaxed) + 1)
        let fair = Self.readMemory / live
        guard fair < largest else { return largest }
        // A power of two from 16 KiB (libcurl's default) up.
        var size = 16 * 1024
        while size * 2 <= fair { size *= 2 }
        return size
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
