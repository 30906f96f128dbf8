import ArgumentParser
import Foundation
import RangeTapCore
import RangeTapProbe

/// `rangetap probe`: conformance checks of a server's Range and Keep-Alive handling.
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Check a server's Range and Keep-Alive handling against RFC 9110 and what media players need.",
        discussion: """
            Sends a few dozen small requests (ranges, a 416, multi-range, If-Range, HEAD, HTTP/1.0, \
            keep-alive sequences, gzip) and reports each check as pass, warn, fail or info with the \
            request sent and the raw response head (--evidence or --json). A check that gets a 200 where \
            it asked a range stops reading at once. With --http2 every request goes over HTTP/2 (h2 by \
            ALPN for https, h2c with prior knowledge for http) and the HTTP/1.x connection checks give \
            way to HTTP/2 ones: range requests as concurrent streams of one connection, and a stream reset \
            mid-body that must leave the connection serving. Exit status: 0 no check failed, 1 a check \
            failed, 2 the server could not be reached, did not speak HTTP/2 when --http2 asked for it, or \
            the arguments are wrong. Goes through the proxy of -x/--proxy, or of http_proxy / https_proxy \
            (no_proxy and --noproxy name hosts reached directly), as curl does. JSON schema: docs/probe-json.md.
                Examples: rangetap probe https://cdn.example.com/a.mp4; rangetap probe http://127.0.0.1:8081/a.mp4 --json.
            """
    )

    // The timeout is a string so that a wrong value exits with status 2 from `run` with the
    // probe's own message; a missing URL exits 2 too (`RangeTap.main` maps usage errors to 2).
    @Argument(help: "URL of a media file (http:// or https://).")
    var url: String

    @Flag(name: .long, help: "Print the report as JSON (docs/probe-json.md).")
    var json = false

    @Flag(name: .long, help: "Show the requests and raw response heads under each check.")
    var evidence = false

    @Option(
        name: .long, help: ArgumentHelp("Add a request header to every request (repeatable).", valueName: "Name: value")
    )
    var header: [String] = []

    @Flag(name: .long, help: "Do not verify the TLS certificate (for https test servers).")
    var insecure = false

    @Option(
        name: .long,
        help: ArgumentHelp("Limit on each request: 10s, 500ms, 1m, or a number of seconds.", valueName: "duration"))
    var timeout: String = "10s"

    @Flag(
        name: .long,
        help:
            "Run the checks over HTTP/2 (https: h2 by ALPN; http: h2c with prior knowledge), with HTTP/2 stream checks in place of keep-alive."
    )
    var http2 = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Trust the CA certificates in this PEM file for https, beside the system's.", valueName: "file"),
        completion: .file())
    var cacert: String?

    @OptionGroup var proxyOptions: ProxyOptions

    @OptionGroup var logging: VerboseOption

    func run() async throws {
        let logger = logging.bootstrap("rangetap.probe")
        let seconds: Double
        do {
            seconds = try DurationText.seconds(timeout, bareNumber: .seconds)
        } catch {
            throw CommandFailure(message: "--timeout: \(error)")
        }
        let proxy = proxyOptions.selection(for: url, environment: ProcessInfo.processInfo.environment, logger: logger)
            .proxy
        logger.debug("timeout \(seconds) s per request\(http2 ? ", over HTTP/2" : "")")
        let options = ProbeOptions(
            url: url, headers: header, insecure: insecure, timeoutSeconds: seconds, http2: http2, caFile: cacert,
            proxy: proxy)
        let report: ProbeReport
        do {
            report = try await Prober.run(options)
        } catch {
            throw CommandFailure(error)
        }
        if json {
            print(try report.json())
        } else {
            print(report.text(verbose: evidence))
        }
        if report.hasFailures { throw ExitCode(1) }
    }
}
