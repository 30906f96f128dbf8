import NIOCore
import RangeTapCore

/// How ``ProxyServer`` listens, forwards and records.
public struct ProxyConfiguration: Sendable {
    /// Address to listen on; 127.0.0.1 unless ``allowRemote``.
    public var listenHost: String
    /// Port to listen on (0: any free port; see ``ProxyServer/localPort``).
    public var listenPort: Int
    /// Reverse-proxy base URL (`http://` or `https://`): origin-form requests go there.
    public var upstream: String?
    /// With ``upstream``: also proxy requests for other origins (absolute-form targets, CONNECT).
    /// Off, a reverse proxy serves only its upstream: with ``allowRemote`` it would otherwise be
    /// an open proxy.
    public var forward = false
    /// Capture directory to create.
    public var capturePath: String
    /// Record body bytes (false: timings and hashes only).
    public var recordBodies: Bool
    /// Hash each exchange's body bytes (SHA-256 in `end`/`cancel`/`error` events); false with
    /// `--no-hash`, which saves the largest CPU cost of recording (about 0.7 CPU seconds per GiB).
    public var hashBodies = true
    /// Keep `Authorization`, `Cookie`, `Set-Cookie` and `Proxy-Authorization` values in the capture.
    public var keepSecrets: Bool
    /// SO_SNDBUF for client sockets, to measure cancel points tightly.
    public var clientSendBuffer: Int?
    /// Permit a listen address other than loopback.
    public var allowRemote: Bool
    /// Credentials every request on the listener must carry (`Proxy-Authorization: Basic`;
    /// `--proxy-auth`): without them 407, recorded. A CONNECT carries them for its tunnel. nil:
    /// none asked.
    public var proxyCredentials: ProxyCredentials?
    /// The networks whose clients may connect (`--allow-client`); loopback clients always may.
    /// Empty: any client that reaches the listener.
    public var allowedClients: [ClientNetwork] = []
    /// Skip TLS verification of an https upstream.
    public var insecureUpstream: Bool
    /// libcurl read size (`CURLOPT_BUFFERSIZE`): the largest round of body bytes handed on at
    /// once. 256 KiB: a player's 512 KiB objects cost about 15 % less CPU than with 512 KiB reads
    /// (libcurl's buffer and the round's fit the CPU's cache) and a large transfer holds 1–2 MiB
    /// less; one very large body costs 6–18 % more (twice the rounds, each a wake-up of the event
    /// loop and the writer). docs/performance.md, "What a transfer holds".
    public var upstreamBufferSize: Int
    /// Per exchange, pause upstream when this many bytes wait for the client.
    public var flowHighWater: Int
    /// Resume when the backlog falls to this.
    public var flowLowWater: Int
    /// Body bytes held for clients across the whole process (``BodyBudget``): responses waiting
    /// for slow or stalled clients, request bodies waiting for libcurl (`--body-memory`).
    public var bodyMemory: Int = 16 << 20
    /// What the exchanges of one client connection may hold together (``ConnectionShare``): a
    /// quarter of ``bodyMemory``.
    var connectionShare: Int { max(FlowControl.smallestWindow, bodyMemory / 4) }
    /// Body bytes that may wait for the capture writer before the upstream transfer is held
    /// back (``CaptureWriter/Options/maxPendingBytes``); nil: ``effectiveCaptureBacklog``'s default.
    public var captureBacklogBytes: Int?
    /// Event-loop threads for client connections.
    public var eventLoopThreads: Int
    /// A request head must arrive whole within this many milliseconds of its first byte
    /// (slowloris); then the connection gets 408 and is closed. 0: no limit.
    public var headTimeoutMs: Int = 30_000
    /// A client connection with nothing in flight (no request being read or answered, no
    /// HTTP/2 stream open) is closed after this many milliseconds. 0: no limit.
    public var idleTimeoutMs: Int = 300_000
    /// A request body that receives nothing for this many milliseconds is answered 408 and the
    /// connection closed (an HTTP/2 stream is reset). 0: no limit.
    public var bodyTimeoutMs: Int = 30_000

    /// ``idleTimeoutMs`` as a time, nil when there is no limit.
    var idleTimeout: TimeAmount? { idleTimeoutMs > 0 ? .milliseconds(Int64(idleTimeoutMs)) : nil }
    /// ``bodyTimeoutMs`` as a time, nil when there is no limit.
    var bodyTimeout: TimeAmount? { bodyTimeoutMs > 0 ? .milliseconds(Int64(bodyTimeoutMs)) : nil }
    /// An upstream transfer that receives nothing for this many milliseconds (while not paused
    /// for a slow client) is ended: 504 if no head was sent, else a close. 0: no limit.
    public var upstreamIdleTimeoutMs: Int = 60_000
    /// Directory of the local CA that intercepts CONNECT tunnels (created there if missing);
    /// nil relays every tunnel opaquely, as bytes and times only.
    public var caDirectory: String?
    /// Hosts whose CONNECT tunnels stay opaque although a CA is set: exact names or IP
    /// literals, or `*.example.com` for every subdomain of example.com (``HostPattern``).
    public var noIntercept: [HostPattern] = []
    /// A PEM file of extra CA certificates trusted for https upstreams, besides the system's.
    public var upstreamCACertificates: String?
    /// A TLS key log (NSS format) for Wireshark (`--keylog`): the client-side secrets of
    /// intercepted tunnels, and libcurl's for its upstream TLS (through `SSLKEYLOGFILE`, which
    /// libcurl reads once per process, when it is first used).
    public var keyLogPath: String?
    /// HTTP/1.1 on both sides (`--http1`): no `h2` offered to clients inside intercepted
    /// tunnels, no h2c on the plain listener, HTTP/1.1 upstream. Off by default: a client gets
    /// HTTP/2 when it offers it and the origin speaks it (docs/http2.md).
    public var http1Only = false
    /// HTTP/2 streams to one origin share one upstream connection (`--upstream-multiplex`).
    /// Off by default: each exchange in flight has an upstream connection of its own (HTTP/2
    /// still, reused by the next exchange once it is free), because libcurl 7.88 cannot hold
    /// back one paused stream of a shared connection: it goes on reading that stream's data, up
    /// to the 32 MiB window it granted, while the others move (docs/http2.md).
    public var upstreamMultiplex = false
    /// Server faults to inject (`--fault`, `--faults`), in order; empty for none.
    public var faultRules: [FaultRule] = []
    /// `--map` rules: requests rangetap answers from local files, never forwarding them.
    public var mapRules: [MapRule] = []
    /// The client's link as `--shape`/`--shape-trace` set it; nil leaves it as it is.
    public var shape: ShapeSpec?

    /// A configuration with defaults for everything but the capture path.
    public init(
        listenHost: String = "127.0.0.1", listenPort: Int = 8080, upstream: String? = nil, capturePath: String,
        recordBodies: Bool = true, keepSecrets: Bool = false, clientSendBuffer: Int? = nil, allowRemote: Bool = false,
        insecureUpstream: Bool = false, upstreamBufferSize: Int = 256 * 1024, flowHighWater: Int = 1 << 20,
        flowLowWater: Int = 256 * 1024, eventLoopThreads: Int = 1
    ) {
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.upstream = upstream
        self.capturePath = capturePath
        self.recordBodies = recordBodies
        self.keepSecrets = keepSecrets
        self.clientSendBuffer = clientSendBuffer
        self.allowRemote = allowRemote
        self.insecureUpstream = insecureUpstream
        self.upstreamBufferSize = upstreamBufferSize
        self.flowHighWater = flowHighWater
        self.flowLowWater = flowLowWater
        self.eventLoopThreads = eventLoopThreads
    }

    /// The capture writer's backlog: ``captureBacklogBytes`` when set, else 2 MiB when body bytes
    /// go to disk, where the page cache's pace varies, and 1 MiB when they are only hashed
    /// (SHA-256 at about 1.8 GB/s keeps up with any upstream, so the backlog only covers the
    /// moments the writer thread waits for a core). Each MiB of backlog is a MiB of resident
    /// memory at the peak of a large transfer. With neither (`--no-bodies --no-hash`) the writer
    /// keeps no body bytes and the backlog never applies.
    public var effectiveCaptureBacklog: Int {
        captureBacklogBytes ?? (recordBodies ? 2 << 20 : 1 << 20)
    }

    /// Whether the listen host is a loopback address: `localhost` or a loopback literal
    /// (`127.0.0.0/8`, `::1`); a name such as `127.example.com` is not one.
    public var listensOnLoopback: Bool {
        IPAddressLiteral.isLoopbackHost(listenHost)
    }

    /// Checks ``upstream`` before anything is bound: it must be an absolute http(s) URL and
    /// must not be the proxy's own listen address (compared by address, as requests are:
    /// `http://0.0.0.0:PORT`, `http://[::ffff:127.0.0.1]:PORT` or `http://localhost:PORT` on the
    /// listen port all are). With port 0 the port is not known yet; requests are still checked.
    public func validateUpstream() throws(ProxyError) {
        guard let upstream else { return }
        guard let scheme = HTTPScheme(url: upstream), let authority = RequestTarget.authority(of: upstream),
            !authority.isEmpty
        else {
            throw .badUpstream(URLRedaction.redactingUserinfo(upstream))
        }
        if RequestTarget.pointsAtSelf(authority, ownPort: listenPort, https: scheme == .https, listenHost: listenHost) {
            throw .upstreamIsProxy(
                URLRedaction.redactingUserinfo(upstream), listen: "\(URLAuthority.hostForURL(listenHost)):\(listenPort)"
            )
        }
    }
}
