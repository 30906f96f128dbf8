import ArgumentParser
import Foundation
import Logging
import RangeTapCore
import RangeTapProxy
import RangeTapSystem
import RangeTapTLS
import RangeTapWeb

/// `rangetap record`: the recording proxy.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Run a recording HTTP proxy and write every exchange to a capture.",
        discussion: """
            Point a client at it as a proxy (curl -x http://127.0.0.1:8080, http_proxy=, ffmpeg -http_proxy), \
            or pass --upstream URL to use it as a reverse proxy. Ctrl-C closes the capture cleanly.
                Examples: rangetap record -o session.rtap (then curl -x http://127.0.0.1:8080 URL); rangetap record -o lan.rtap --listen 0.0.0.0:8080 --allow-remote (devices on the LAN; credentials printed); rangetap record -o lab.rtap --shape rate=2mbit,latency=80ms --fault 'path=*.ts,nth=3,reset-after=64k'. Exit status: 0 when stopped by Ctrl-C or SIGTERM with the capture complete, 1 when writing the capture failed while recording, 2 when it could not start (bad arguments, address in use, unusable CA).
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Address to listen on, HOST:PORT or PORT (port 0 picks a free one; default: 127.0.0.1:8080).",
            valueName: "address"))
    var listen: String?

    @Option(
        name: .customShort("p"),
        help: ArgumentHelp("Port to listen on at 127.0.0.1: short for --listen 127.0.0.1:PORT.", valueName: "port"))
    var port: Int?

    @Option(
        name: .long,
        help: "Reverse-proxy mode: send origin-form requests to this http(s) URL (and serve only it, unless --forward)."
    )
    var upstream: String?

    @Flag(
        name: .long,
        help:
            "With --upstream: also act as a forward proxy for other origins (absolute-form requests, CONNECT). Off, requests for any other origin are refused with 403."
    )
    var forward = false

    @Option(
        name: [.short, .customLong("output")], help: "Capture directory to create (NAME.rtap).", completion: .directory)
    var output: String

    @Flag(name: .long, help: "Record timings, heads and SHA-256 only, not body bytes.")
    var noBodies = false

    @Flag(
        name: .long,
        help:
            "Do not hash body bytes: end and cancel events carry no SHA-256 (recording costs about half the CPU with --no-bodies)."
    )
    var noHash = false

    @Flag(name: .long, help: "Keep Authorization, Cookie, Set-Cookie and Proxy-Authorization values in the capture.")
    var keepSecrets = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "SO_SNDBUF for client sockets, to measure cancel points tightly: bytes, or 16k, 1m.", valueName: "size"))
    var clientSndbuf: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Memory of upstream read buffers (64 KiB and larger) kept for reuse once written: bytes, or 2m (default); what a burst needed beyond it goes back to the kernel. 0 returns every buffer at once (more page faults).",
            valueName: "size"))
    var bufferPool: String?

    @Flag(
        name: .long,
        help:
            "Allow listening on a non-loopback address. Alone: clients must authenticate with a user and password made for the run and printed at start."
    )
    var allowRemote = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Ask every client for these credentials (Proxy-Authorization: Basic; 407 otherwise, recorded). Allows a non-loopback --listen.",
            valueName: "user:pass"))
    var proxyAuth: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Accept clients only from this network, such as 192.168.1.0/24 (repeatable; loopback always). Allows a non-loopback --listen.",
            valueName: "cidr"))
    var allowClient: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve the capture as a live page on this address while recording (PORT or HOST:PORT; 0 picks a free port); the URL with its token is printed (docs/web.md).",
            valueName: "address"))
    var web: String?

    @Flag(name: .long, help: "Do not verify the TLS certificate of an https upstream.")
    var insecure = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Directory of rangetap's local CA, which intercepts HTTPS (CONNECT) tunnels; created there on first use.",
            valueName: "DIR"), completion: .directory)
    var caDir: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Relay CONNECT tunnels to HOST opaquely, without decrypting them (repeatable): a name, an IP, *.example.com for its subdomains, or '*' for every host.",
            valueName: "HOST"))
    var noIntercept: [String] = []

    @Flag(
        name: .customLong("http1"),
        help:
            "Speak HTTP/1.1 on both sides: offer no h2 to clients (ALPN, h2c) and ask none of origins, to compare with what HTTP/2 players do."
    )
    var http1 = false

    @Flag(
        name: .long,
        help:
            "Send concurrent HTTP/2 requests to one origin as streams of one upstream connection, as the client sent them. Off: one upstream connection per request in flight, because a stream the client stops reading can then hold up to 32 MiB in libcurl (docs/http2.md)."
    )
    var upstreamMultiplex = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Inject a server fault (repeatable). Match keys host=, path= (exact or a glob such as *.ts), method=, range=yes|no, nth=; actions status=, reset-after=, stall-after=BYTES,for=, delay-head=, ignore-range, off-by-one, drop-header=, header-case=lower|upper|mixed, truncate-after= (docs/lab.md).",
            valueName: "RULE"))
    var fault: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Read fault rules from FILE, one a line; '#' starts a comment.", valueName: "FILE"),
        completion: .file())
    var faults: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Answer matching requests from a local file, never forwarding them (Map Local, repeatable): match keys as --fault's (host=, path=, method=, range=, nth=), then file=PATH (one file), dir=PATH (the file the request's path names under PATH, after the path= glob's directory) or capture=CAP.rtap. Answers honour Range as RFC 9110 says (206, multipart, 416, If-Range, HEAD; ETag and Last-Modified from the file), are paced by --shape, and are recorded as mapped (docs/lab.md).",
            valueName: "RULE"))
    var map: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Shape the link the client sees: rate=2mbit, latency=80ms, jitter=10ms, scope=link|connection; change it while recording with rangetap shape (docs/lab.md).",
            valueName: "SPEC"))
    var shape: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Drive the link's rate by a Mahimahi trace: one line per delivery opportunity of a 1500-byte packet, in ms (tools/traces).",
            valueName: "FILE"), completion: .file())
    var shapeTrace: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "PEM file of CA certificates to trust for https upstreams, besides the system's (like curl's --cacert).",
            valueName: "FILE"), completion: .file())
    var upstreamCacert: String?

    @Option(
        name: .long,
        help:
            "Close a connection whose request head is not whole this long after its first byte (slowloris), answering 408: 500ms, 2s, 1m; 0 for no limit."
    )
    var headTimeout = "30s"

    @Option(
        name: .long,
        help:
            "Close a client connection with nothing in flight (no request being read or answered, no HTTP/2 stream open) after this long: 30s, 5m; 0 for no limit."
    )
    var idleTimeout = "5m"

    @Option(
        name: .long,
        help:
            "Answer 408 and close (HTTP/2: reset the stream) when a request body receives nothing this long: 10s, 1m; 0 for no limit."
    )
    var bodyTimeout = "30s"

    @Option(
        name: .long,
        help:
            "End an upstream transfer that receives nothing this long (not counting time paused for a slow client): 504, or a close mid-body; 0 for no limit."
    )
    var upstreamIdleTimeout = "60s"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Body bytes rangetap may hold for its clients at once, all connections together (responses waiting for slow clients, request bodies waiting for the origin); beyond it transfers pause: 16m, 256m.",
            valueName: "SIZE"))
    var bodyMemory = "16m"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Append the TLS secrets of intercepted tunnels (client side) and of libcurl's upstream TLS to this file, in NSS key log format, for Wireshark or tshark -o tls.keylog_file:FILE (docs/https.md). SSLKEYLOGFILE in the environment does the same. The file holds secrets: mode 0600.",
            valueName: "FILE"), completion: .file())
    var keylog: String?

    @OptionGroup var logging: VerboseOption

    /// `--client-sndbuf` in bytes.
    private func sendBuffer() throws -> Int? {
        guard let clientSndbuf else { return nil }
        do { return Int(try SizeText.bytes(clientSndbuf)) } catch { throw ValidationError("--client-sndbuf: \(error)") }
    }

    /// `--buffer-pool` in bytes.
    private func poolCap() throws -> Int {
        guard let bufferPool else { return RoundBufferPool.defaultCap }
        do { return Int(try SizeText.bytes(bufferPool)) } catch { throw ValidationError("--buffer-pool: \(error)") }
    }

    /// `--body-memory` in bytes.
    private func bodyMemoryBytes() throws -> Int {
        do { return Int(try SizeText.bytes(bodyMemory)) } catch { throw ValidationError("--body-memory: \(error)") }
    }

    func validate() throws {
        // The capture directory is made, its parent never: a typo in the path must not grow a tree.
        let parent = (output.hasSuffix("/") ? String(output.dropLast()) : output).split(
            separator: "/", omittingEmptySubsequences: false
        ).dropLast().joined(separator: "/")
        // (A parent that exists but is no directory is the capture writer's to name.)
        if !parent.isEmpty, System.status(parent) == nil {
            throw ValidationError(
                "-o \(output): the directory \(parent) does not exist; create it first (mkdir -p \(parent)) or choose another path"
            )
        }
        if !((4 << 20)...(1 << 40)).contains(try bodyMemoryBytes()) {
            throw ValidationError("--body-memory \(bodyMemory): must be from 4m to 1t")
        }
        _ = try ListenAddress(listen: listen, port: port, default: "127.0.0.1:8080")
        do { _ = try DurationText.milliseconds(headTimeout) } catch {
            throw ValidationError("--head-timeout: \(error); 0 for no limit")
        }
        do { _ = try DurationText.milliseconds(upstreamIdleTimeout) } catch {
            throw ValidationError("--upstream-idle-timeout: \(error); 0 for no limit")
        }
        do { _ = try DurationText.milliseconds(idleTimeout) } catch {
            throw ValidationError("--idle-timeout: \(error); 0 for no limit")
        }
        do { _ = try DurationText.milliseconds(bodyTimeout) } catch {
            throw ValidationError("--body-timeout: \(error); 0 for no limit")
        }
        if try poolCap() > 1 << 30 { throw ValidationError("--buffer-pool \(bufferPool ?? ""): must be at most 1g") }
        if let s = try sendBuffer(), !(1024...(1 << 30)).contains(s) {
            throw ValidationError("--client-sndbuf \(clientSndbuf ?? ""): must be from 1k (1024 bytes) to 1g")
        }
        if let web {
            let address = try ListenAddress(web)
            if !IPAddressLiteral.isLoopbackHost(address.host) && !allowRemote {
                throw ValidationError(
                    "--web \(web): not a loopback address; add --allow-remote if other machines should see it")
            }
        }
        if let proxyAuth {
            do { _ = try ProxyCredentials(parsing: proxyAuth) } catch { throw ValidationError(error.description) }
        }
        for network in allowClient {
            do { _ = try ClientNetwork(parsing: network) } catch {
                throw ValidationError("--allow-client \(error.description)")
            }
        }
        for pattern in noIntercept where HostPattern(pattern) == nil {
            throw ValidationError(
                "--no-intercept \(pattern): expected a host name, an IP address, *.example.com or '*'")
        }
    }

    func run() async throws {
        let logger = logging.bootstrap("rangetap")
        RoundBufferPool.setCap(try poolCap())
        let address = try ListenAddress(listen: listen, port: self.port, default: "127.0.0.1:8080")
        var config = ProxyConfiguration(
            listenHost: address.host, listenPort: address.port, upstream: upstream, capturePath: output,
            recordBodies: !noBodies, keepSecrets: keepSecrets, clientSendBuffer: try sendBuffer(),
            allowRemote: allowRemote, insecureUpstream: insecure)
        config.forward = forward
        config.proxyCredentials = try proxyAuth.map { try ProxyCredentials(parsing: $0) }
        config.allowedClients = try allowClient.map { try ClientNetwork(parsing: $0) }
        if !config.listensOnLoopback && allowRemote && config.proxyCredentials == nil && config.allowedClients.isEmpty {
            // --allow-remote alone: never an open proxy; credentials for this run, printed below.
            config.proxyCredentials = ProxyCredentials.generate()
        }
        config.headTimeoutMs = try DurationText.milliseconds(headTimeout)
        config.upstreamIdleTimeoutMs = try DurationText.milliseconds(upstreamIdleTimeout)
        config.idleTimeoutMs = try DurationText.milliseconds(idleTimeout)
        config.bodyTimeoutMs = try DurationText.milliseconds(bodyTimeout)
        config.bodyMemory = try bodyMemoryBytes()
        config.noIntercept = noIntercept.compactMap(HostPattern.init)
        // '*' relays every tunnel opaquely: no CA is needed.
        config.caDirectory =
            config.noIntercept.contains(where: \.isEveryHost) ? nil : (caDir ?? CertificateAuthorityLocation.directory)
        config.upstreamCACertificates = upstreamCacert
        // SSLKEYLOGFILE as browsers and curl honour it, unless --keylog names another file.
        config.keyLogPath = keylog ?? System.environment("SSLKEYLOGFILE").flatMap { $0.isEmpty ? nil : $0 }
        config.http1Only = http1
        config.upstreamMultiplex = upstreamMultiplex
        config.hashBodies = !noHash
        let stderr = StandardError()
        do {
            // Before anything is bound: a bad rule stops the recording before it starts.
            config.faultRules = try LabOptions.faultRules(fault, file: faults)
            config.mapRules = try LabOptions.mapRules(map)
            config.shape = try LabOptions.shape(shape, trace: shapeTrace)
        } catch {
            throw CommandFailure(error)
        }
        do {
            // Before anything is bound: an upstream that is this proxy would loop.
            try config.validateUpstream()
        } catch {
            throw CommandFailure(error)
        }
        let server: ProxyServer
        let captureDirectory = NewCaptureDirectory(path: output)
        do {
            server = try ProxyServer(configuration: config, logger: logger) { line in stderr.write(line) }
        } catch {
            throw CommandFailure(error)
        }
        let port: Int
        do {
            port = try await server.start()
        } catch {
            await server.stop()
            // Nothing was recorded: no capture directory is left behind.
            captureDirectory.discard(logger: logger)
            throw CommandFailure(error)
        }
        if let credentials = config.proxyCredentials {
            let made = proxyAuth == nil
            stderr.write(
                "rangetap: clients must authenticate: user \(credentials.user), password \(made ? credentials.password : "as given with --proxy-auth") (curl -x http://\(credentials.user):\(made ? credentials.password : "PASS")@\(address.authority(port: port)))"
            )
        }
        if !config.allowedClients.isEmpty {
            stderr.write(
                "rangetap: clients accepted from \(config.allowedClients.map(\.description).joined(separator: ", ")) and loopback only"
            )
        }
        let mode =
            upstream.map { "reverse proxy to \(URLRedaction.redactingUserinfo($0, if: !keepSecrets))" }
            ?? "forward proxy (curl -x http://\(address.authority(port: port)))"
        stderr.write("rangetap: recording to \(output) — \(mode) on \(address.authority(port: port)); Ctrl-C to stop")
        if let path = config.keyLogPath {
            stderr.write("rangetap: writing TLS secrets to \(path) (NSS key log format): keep it private")
        }
        if let ca = server.certificateAuthority {
            if server.createdCertificateAuthority {
                stderr.write(
                    "rangetap: created a local CA in \(ca.directory) to intercept HTTPS; clients must trust \(ca.certificatePath) (rangetap ca info says how)"
                )
            } else {
                stderr.write("rangetap: intercepting HTTPS with the CA in \(ca.directory) (rangetap ca info)")
            }
            stderr.write(
                "rangetap: devices using this proxy get the CA and the steps to trust it at http://\(LinkControlRequest.host)/"
            )
        }
        var view: WebServer?
        if let web {
            do {
                let (started, webPort) = try await WebView.start(
                    capture: output, address: try ListenAddress(web), live: true)
                server.protectWebView(port: webPort)
                view = started
            } catch {
                await server.stop()
                throw error
            }
        }
        let signal = await SignalWaiter.wait(for: [SIGINT, SIGTERM])
        await server.stop()
        await view?.stop()
        let s = server.summary
        stderr.write(
            "rangetap: stopped (\(signal == SIGINT ? "SIGINT" : "SIGTERM")): \(s.line) -> \(output)"
        )
        if let error = server.captureWriteError {
            throw CommandFailure(error, status: .failure)
        }
    }
}
