import ArgumentParser
import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapProxy
import RangeTapReport

/// `rangetap export`: a capture as a HAR file and/or a self-contained HTML waterfall.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Write a capture as HAR 1.2 (for browser developer tools), an HTML waterfall report, a table of its exchanges, and/or the curl command that repeats one exchange.",
        discussion:
            "The HTML page is self-contained (no network). HAR entries carry rangetap's fields _chunks, _cancelled, _error and _findings; for a capture recorded with bodies, each response's content.text holds the bytes the client got (base64), up to --har-max-body. --exchanges writes one flat JSON object per exchange, one per line, every column on every line (docs/fleet.md: querying many captures with DuckDB). --curl N prints to stdout the curl command that repeats exchange N as its client sent it: method, URL, every request header line in its order and spelling (Range included), the HTTP version; comment lines name what it cannot carry (redacted secrets, a request body: captures do not record request bodies). Examples: rangetap export session.rtap --html report.html; rangetap export session.rtap --har session.har; rangetap export session.rtap --curl 3. Exit status: 0 when everything asked was written, 2 on bad arguments or a capture that cannot be read."
    )

    @Argument(help: "Capture directory (NAME.rtap).", completion: .directory)
    var capture: String

    @Option(
        name: .customLong("har"), help: ArgumentHelp("Write HAR 1.2 to this file.", valueName: "OUT.har"),
        completion: .file())
    var harPath: String?

    @Option(
        name: .customLong("har-max-body"),
        help: ArgumentHelp(
            "Largest response body to put in the HAR (content.text, base64), as 262144, 256k, 1m; a larger one is left out with a comment. 0: no bodies.",
            valueName: "SIZE"))
    var harMaxBody = "1m"

    @Option(
        name: .customLong("html"),
        help: ArgumentHelp("Write the HTML waterfall report to this file.", valueName: "OUT.html"), completion: .file())
    var htmlPath: String?

    @Option(
        name: .customLong("exchanges"),
        help: ArgumentHelp("Write one JSON line per exchange to this file (docs/fleet.md).", valueName: "OUT.jsonl"),
        completion: .file())
    var exchangesPath: String?

    @Option(
        name: .customLong("curl"),
        help: ArgumentHelp(
            "Print the curl command that repeats this exchange (its id in inspect's # column).", valueName: "N"))
    var curlExchange: Int?

    func validate() throws {
        if harPath == nil && htmlPath == nil && exchangesPath == nil && curlExchange == nil {
            throw ValidationError(
                "say what to write: --har OUT.har, --html OUT.html, --exchanges OUT.jsonl and/or --curl EXCHANGE")
        }
        _ = try maxBodyBytes()
    }

    /// `--har-max-body` in bytes.
    func maxBodyBytes() throws -> Int64 {
        do { return try SizeText.bytes(harMaxBody) } catch { throw ValidationError("--har-max-body: \(error)") }
    }

    func run() throws {
        do {
            // Chunks only for what draws or lists them.
            let analysis = try MediaAnalysis.analyze(path: capture, keepChunks: harPath != nil || htmlPath != nil)
            var written: [String] = []
            if let harPath {
                let bodies = try HARBody.read(analysis, from: CaptureReader(path: capture), maxBytes: maxBodyBytes())
                try HARExport.write(
                    analysis: analysis, to: harPath, creatorVersion: RangeTapVersion.current, title: capture,
                    bodies: bodies)
                written.append(harPath)
            }
            if let htmlPath {
                try HTMLReport.write(analysis: analysis, to: htmlPath, title: capture)
                written.append(htmlPath)
            }
            if let exchangesPath {
                try ExchangeTable.write(analysis: analysis, capturePath: capture, to: exchangesPath)
                written.append(exchangesPath)
            }
            if let curlExchange {
                print(try CurlCommand.render(analysis, exchange: curlExchange, capture: capture), terminator: "")
                if written.isEmpty { return }
            }
            if analysis.truncatedTail {
                StandardError().write(
                    "rangetap: warning: the last event of \(capture) is incomplete (the capture was cut off or is still being written); exported the events before it"
                )
            }
            let n = analysis.exchanges.count
            StandardError().write(
                "rangetap: exported \(n) exchange\(n == 1 ? "" : "s") from \(capture) to \(written.joined(separator: " and "))"
            )
        } catch {
            throw CommandFailure(error)
        }
    }
}
