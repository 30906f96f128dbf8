import ArgumentParser
import Foundation
import RangeTapCore
import RangeTapReplay
import RangeTapTLS

/// `rangetap serve`: a capture as an HTTP origin.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a capture as an HTTP/1.1 origin: faithfully as recorded, or with ideal range handling.",
        discussion: """
            --faithful (the default) answers each recorded request (matched by host, method, path with \
            query and Range value; --match path ignores the host) exactly as it was answered: the raw status and header lines, the body in \
            the recorded chunk sizes at the recorded pace (--speed scales it), drops and cancels \
            included; an unknown request gets a 404 listing what the capture has. The host comes from an \
            absolute-form target (serve used as a proxy: curl -x) or the Host header; the same host on \
            another port (serve's own) matches that host, and a host the capture never saw (the client \
            named serve itself) matches any. --ideal serves the \
            captured bytes of each resource with RFC 9110 range handling: 200, 206, \
            multipart/byteranges, 416 (bytes */LENGTH) for bytes past the end or never captured, HEAD. \
            Prints the address to stderr, one line per request; Ctrl-C stops. See docs/replay.md.
                Examples: rangetap serve session.rtap (then curl http://127.0.0.1:8090/…); rangetap serve session.rtap --ideal. Exit status: 0 when stopped by Ctrl-C or SIGTERM, 2 when it could not start.
            """
    )

    /// How to answer.
    enum Mode: String, EnumerableFlag {
        case faithful, ideal

        static func help(for value: Mode) -> ArgumentHelp? {
            switch value {
            case .faithful: "Replay each recorded exchange byte for byte, with its pacing."
            case .ideal: "Serve the captured bytes of each resource with correct range handling."
            }
        }
    }

    @Argument(help: "Capture directory (NAME.rtap), recorded with bodies.", completion: .directory)
    var capture: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Address to listen on, HOST:PORT or PORT (port 0 picks a free one; default: 127.0.0.1:8090; not 8081, which the README's examples give the origin).",
            valueName: "address"))
    var listen: String?

    @Option(
        name: .customShort("p"),
        help: ArgumentHelp("Port to listen on at 127.0.0.1: short for --listen 127.0.0.1:PORT.", valueName: "port"))
    var port: Int?

    /// How `--faithful` finds the recorded exchange of a request.
    enum Match: String, ExpressibleByArgument, CaseIterable {
        case hostPath = "host-path"
        case path

        var matching: FixtureServer.Matching {
            switch self {
            case .hostPath: .hostAndPath
            case .path: .path
            }
        }
    }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How --faithful matches requests: host-path (host, path with query and Range), or path (any host, as before).",
            valueName: "host-path|path"))
    var match: Match = .hostPath

    @Flag(exclusivity: .exclusive)
    var mode: Mode = .faithful

    @Option(name: .long, help: "Pacing of --faithful: 2 is twice as fast as recorded, 0 sends without pauses.")
    var speed: Double = 1

    @Flag(name: .long, help: "Allow listening on a non-loopback address.")
    var allowRemote = false

    @Flag(name: .shortAndLong, help: "Do not print a line per request.")
    var quiet = false

    @Flag(
        name: .long,
        help:
            "Serve over HTTPS with a certificate minted by rangetap's CA (see --ca-dir), for clients that only fetch https URLs."
    )
    var tls = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Directory of rangetap's local CA for --tls (default ~/.rangetap; created if missing).", valueName: "DIR"),
        completion: .directory)
    var caDir: String?

    /// `--listen`, `-p` or the default.
    private func listenAddress() throws -> ListenAddress {
        try ListenAddress(listen: listen, port: port, default: "127.0.0.1:8090")
    }

    func validate() throws {
        let address = try listenAddress()
        if !allowRemote && !IPAddressLiteral.isLoopbackHost(address.host) {
            throw ValidationError(
                "--listen \(listen ?? "") is not a loopback address: add --allow-remote to serve the capture to other machines"
            )
        }
        if match != .hostPath && mode == .ideal {
            throw ValidationError("--match chooses how --faithful matches requests; --ideal serves resources by path")
        }
        if !(speed >= 0) || !speed.isFinite { throw ValidationError("--speed must be a number >= 0 (0: no pauses)") }
        if mode == .ideal && speed != 1 { throw ValidationError("--speed paces --faithful only") }
    }

    func run() async throws {
        let stderr = StandardError()
        let address = try listenAddress()
        var sink: (@Sendable (String) -> Void)?
        if !quiet {
            sink = { line in stderr.write("rangetap: " + line) }
        }
        let server: FixtureServer
        let port: Int
        var context: TLSContext?
        var authority: CertificateAuthority?
        if tls {
            do {
                let (ca, created) = try CertificateAuthority.loadOrCreate(
                    in: caDir ?? CertificateAuthorityLocation.directory)
                if created {
                    stderr.write(
                        "rangetap: created a local CA in \(ca.directory); clients must trust \(ca.certificatePath) (rangetap ca info says how)"
                    )
                }
                context = try InterceptContexts(leaves: try LeafCertificates(authority: ca)).context(for: address.host)
                authority = ca
            } catch {
                throw CommandFailure(message: "cannot serve over HTTPS: \(error)")
            }
        }
        do {
            server = try FixtureServer(
                capturePath: capture, mode: mode == .ideal ? FixtureServer.Mode.ideal : FixtureServer.Mode.faithful,
                host: address.host, port: address.port,
                speed: speed, tls: context, matching: match.matching, lineSink: sink)
            port = try await server.start()
        } catch {
            throw CommandFailure(error)
        }
        stderr.write(
            "rangetap: serving \(capture) (\(mode.rawValue)) on \(tls ? "https" : "http")://\(address.authority(port: port)); Ctrl-C to stop"
        )
        if let authority {
            stderr.write(
                "rangetap: the certificate is signed by \(authority.certificatePath): clients must trust it (curl --cacert \(authority.certificatePath))"
            )
        }
        let signal = await SignalWaiter.wait(for: [SIGINT, SIGTERM])
        await server.stop()
        let t = server.traffic
        stderr.write(
            "rangetap: stopped (\(signal == SIGINT ? "SIGINT" : "SIGTERM")): \(t.requests) requests, \(t.bodyBytes) body bytes served"
        )
    }
}
