import ArgumentParser
import Foundation
import RangeTapSystem
import RangeTapCore
import RangeTapMedia
import RangeTapReport
import RangeTapWeb

/// `rangetap inspect`: how a player fetched, what the server answered, what is wrong.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Timeline, findings and summary of a capture.",
        discussion:
            "Colour with --color auto (on a terminal, unless NO_COLOR is set), always or never. --json prints the schema of docs/inspect-json.md. --host, --path and --status keep only the exchanges they match, in text, JSON, HTML and --follow alike; the summary counts those. Exit status: 0, or 1 with --fail-on when such a finding exists, 2 when the capture cannot be read. Examples: rangetap inspect session.rtap; rangetap inspect session.rtap --json; rangetap inspect session.rtap --html report.html; rangetap inspect session.rtap --fail-on warn (in CI)."
    )

    @Argument(help: "Capture directory (NAME.rtap).", completion: .directory)
    var capture: String

    @Flag(name: .long, help: "Print JSON (docs/inspect-json.md) instead of text.")
    var json = false

    @Flag(
        name: .long,
        help:
            "Keep reading a capture that is still being written; print each exchange as it ends, and those in flight (on a terminal, redrawn in place; in a pipe, a line as each starts and every 2 s). Ctrl-C stops."
    )
    var follow = false

    @Option(name: .long, help: "Also write a self-contained HTML report (waterfall, findings, table) to this file.")
    var html: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Colour the text: auto (on a terminal and NO_COLOR unset), always or never.", valueName: "when"))
    var color: ColorChoice = .auto

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only exchanges with this host (cdn.example.com, or cdn.example.com:8443 for one port). Repeatable.",
            valueName: "host"))
    var host: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only exchanges whose path matches: an exact path or a glob such as '*.m4s' or '/video/*'. Repeatable.",
            valueName: "glob"))
    var path: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only exchanges the client got this status for: a code (206) or a class (4xx). Repeatable.",
            valueName: "status"))
    var status: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Exit 1 when a finding at this level or above exists (warn or error), for CI. Findings a --fault rule injected do not count.",
            valueName: "level"))
    var failOn: FailLevel?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve the capture, finished or still growing, as a live page on this address (PORT or HOST:PORT; 0 picks a free port) until Ctrl-C; the URL with its token is printed (docs/web.md).",
            valueName: "address"))
    var web: String?

    @Flag(name: .long, help: "Allow --web on a non-loopback address.")
    var allowRemote = false

    /// `--fail-on` levels.
    enum FailLevel: String, ExpressibleByArgument, CaseIterable {
        case warn, error
        var severity: Finding.Severity { self == .warn ? .warn : .error }
    }

    /// The exchanges the filter options keep.
    var filter: ExchangeFilter {
        get throws(ExchangeFilterError) { try ExchangeFilter(hosts: host, paths: path, statuses: status) }
    }

    func validate() throws {
        do {
            _ = try filter
        } catch {
            throw ValidationError(error.description)
        }
        if json && follow { throw ValidationError("--follow prints text rows as they come; use it without --json") }
        if follow && html != nil { throw ValidationError("--html writes a finished report; use it without --follow") }
        if let web {
            if json || follow || html != nil {
                throw ValidationError("--web serves the page alone: drop --json, --follow, --html")
            }
            let address = try ListenAddress(web)
            if !IPAddressLiteral.isLoopbackHost(address.host) && !allowRemote {
                throw ValidationError(
                    "--web \(web): not a loopback address; add --allow-remote if other machines should see it")
            }
        }
    }

    func run() async throws {
        let colour = color.enabled()
        if let web {
            let (server, _) = try await WebView.start(capture: capture, address: try ListenAddress(web), live: false)
            _ = await SignalWaiter.wait(for: [SIGINT, SIGTERM])
            await server.stop()
            return
        }
        if follow {
            try await followCapture(colour: colour)
            return
        }
        let analysis: CaptureAnalysis
        do {
            // The waterfall needs every chunk; text and JSON do not (memory stays flat).
            analysis = try MediaAnalysis.analyze(path: capture, keepChunks: html != nil).filtered(try filter)
            if let html {
                try HTMLReport.write(analysis: analysis, to: html, title: capture)
                StandardError().write("rangetap: wrote \(html)")
            }
        } catch {
            throw CommandFailure(error)
        }
        if json {
            FileHandle.standardOutput.write(try InspectJSON(analysis, path: capture).encoded())
            print()
        } else {
            print(TimelineText(colour: colour).render(analysis), terminator: "")
        }
        if let failOn, analysis.hasFindings(atLeast: failOn.severity) { throw ExitCode(1) }
    }

    private func followCapture(colour: Bool) async throws {
        let tail: CaptureTail
        do {
            tail = try CaptureTail(path: capture)
        } catch {
            throw CommandFailure(error)
        }
        let text = TimelineText(colour: colour)
        var builder = CaptureAnalysisBuilder(header: tail.header, keepChunks: false)
        let stop = SignalFlag(signals: [SIGINT, SIGTERM])
        emit(text.heading)
        // The HTTP/2 connection of the rows just printed: a run of its streams gets one line above it.
        var streamsOf: Int?
        let filter = try filter
        // On a terminal, the exchanges in flight are a block under the rows, redrawn in place;
        // in a pipe, a line when one starts and a progress line every 2 s while it lasts.
        let live = System.isTerminal(STDOUT_FILENO)
        var drawn = 0
        var announced: [Int: Date] = [:]
        while !stop.isSet {
            var lines: [String] = []
            for event in try tail.next() {
                if case .shape(let shape) = event { lines.append(text.shaping(shape)) }
                if let done = builder.apply(event) {
                    announced[done.record.id] = nil
                    guard filter.matches(done.record) else { continue }
                    let r = done.record
                    if r.stream != nil, streamsOf != r.connection {
                        lines.append(text.connectionHeader(connection: r.connection, streams: nil))
                    }
                    streamsOf = r.stream != nil ? r.connection : nil
                    lines.append(text.row(done))
                    for f in done.findings where f.severity > .info { lines.append("    " + text.finding(f)) }
                }
            }
            let flying = builder.inFlight.filter { filter.matches($0) }
            if live {
                var block = flying.prefix(Self.liveLines).map { text.inFlight($0, now: builder.latest) }
                if flying.count > Self.liveLines {
                    block.append("  … and \(flying.count - Self.liveLines) more in flight")
                }
                let body = (lines + block).joined(separator: "\n")
                if drawn > 0 || !body.isEmpty {
                    emit((drawn > 0 ? "\u{1B}[\(drawn)F\u{1B}[J" : "") + body, newline: !body.isEmpty)
                }
                drawn = block.count
            } else {
                let now = Date()
                for r in flying.prefix(Self.liveLines)
                where announced[r.id].map({ now.timeIntervalSince($0) >= 2 }) ?? true {
                    announced[r.id] = now
                    lines.append(text.inFlight(r, now: builder.latest))
                }
                for line in lines { emit(line) }
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        if live && drawn > 0 { emit("\u{1B}[\(drawn)F\u{1B}[J", newline: false) }
        let analysis = builder.finish().filtered(filter)
        emit("\n" + text.summary(analysis))
        if let failOn, analysis.hasFindings(atLeast: failOn.severity) { throw ExitCode(1) }
    }

    /// In-flight exchanges shown at once by `--follow`.
    private static let liveLines = 12

    /// Writes a line at once (stdout is block-buffered when piped).
    private func emit(_ line: String, newline: Bool = true) {
        FileHandle.standardOutput.write(Data((line + (newline ? "\n" : "")).utf8))
    }
}
