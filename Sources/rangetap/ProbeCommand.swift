import ArgumentParser
import Foundation
import RangeTapProbe

/// `rangetap probe`: conformance checks of a server's Range and Keep-Alive handling.
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Check a server's Range and Keep-Alive handling against RFC 9110 and what media players need.",
        discussion: """
        Sends a few dozen small requests (ranges, a 416, multi-range, If-Range, HEAD, HTTP/1.0, \
        keep-alive sequences, gzip) and reports each check as pass, warn, fail or info with the \
        request sent and the raw response head (--verbose or --json). A check that gets a 200 where \
        it asked a range stops reading at once. Exit status: 0 no check failed, 1 a check failed, \
        2 the server could not be reached or the arguments are wrong. JSON schema: docs/probe-json.md.
        """
    )

    // Optional, and the timeout a string, so that a missing or wrong value exits with status 2
    // as documented (argument-parser's own usage errors exit with 64).
    @Argument(help: "URL of a media file (http:// or https://).")
    var url: String?

    @Flag(name: .long, help: "Print the report as JSON (docs/probe-json.md).")
    var json = false

    @Flag(name: .long, help: "Show the requests and raw response heads under each check.")
    var verbose = false

    @Option(name: .long, help: ArgumentHelp("Add a request header to every request (repeatable).", valueName: "Name: value"))
    var header: [String] = []

    @Flag(name: .long, help: "Do not verify the TLS certificate (for https test servers).")
    var insecure = false

    @Option(name: .long, help: ArgumentHelp("Limit on each request, in seconds (default 10).", valueName: "seconds"))
    var timeout: String = "10"

    func run() async throws {
        let stderr = StandardError()
        guard let url else {
            stderr.write("rangetap: probe needs the URL of a media file, such as rangetap probe http://127.0.0.1:8080/movie.mp4")
            throw ExitCode(2)
        }
        guard let seconds = Double(timeout) else {
            stderr.write("rangetap: \(ProbeError.badTimeout(timeout))")
            throw ExitCode(2)
        }
        let options = ProbeOptions(url: url, headers: header, insecure: insecure, timeoutSeconds: seconds)
        let report: ProbeReport
        do {
            report = try await Prober.run(options)
        } catch {
            stderr.write("rangetap: \(error)")
            throw ExitCode(2)
        }
        if json {
            print(try report.json())
        } else {
            print(report.text(verbose: verbose))
        }
        if report.hasFailures { throw ExitCode(1) }
    }
}
