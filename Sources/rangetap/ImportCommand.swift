import ArgumentParser
import Foundation
import RangeTapProxy
import RangeTapReport

/// `rangetap import`: a HAR file (browser developer tools, `rangetap export --har`) as a capture.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Turn a HAR 1.2 file (from a browser's developer tools) into a capture, to inspect, replay and serve it.",
        discussion:
            "A HAR has no chunk times: each response becomes one chunk holding its whole body (content.text), at the time the HAR gives for the response's end. An entry without content.text gets no chunk (its end counts 0 bytes). Bad input exits 2 and leaves no capture. Example: rangetap import devtools.har -o devtools.rtap. Exit status: 0, or 2 on bad input (and no capture is left)."
    )

    @Argument(help: ArgumentHelp("The HAR file.", valueName: "IN.har"), completion: .file())
    var har: String

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("The capture directory to write; it must not exist yet.", valueName: "NAME.rtap"),
        completion: .directory)
    var output: String

    func run() throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: output, isDirectory: &isDirectory),
            !isDirectory.boolValue || (try? files.contentsOfDirectory(atPath: output))?.isEmpty != true
        {
            StandardError().write("rangetap: \(output) already exists; give a new capture path with -o")
            throw ExitCode(2)
        }
        do {
            let summary = try HARImport.convert(harPath: har, to: output, tool: "rangetap \(RangeTapVersion.current)")
            let err = StandardError()
            err.write(
                "rangetap: note: a HAR has no chunk times: each response is one chunk, at the time the HAR gives for its end"
            )
            let n = summary.exchanges
            var line = "rangetap: imported \(n) exchange\(n == 1 ? "" : "s") from \(har) to \(output)"
            if summary.withoutBody > 0 { line += " (\(summary.withoutBody) without a body in the HAR)" }
            err.write(line)
        } catch {
            StandardError().write("rangetap: \(error)")
            throw ExitCode(2)
        }
    }
}
