import ArgumentParser
import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapReport

/// `rangetap diff`: two playbacks of the same content side by side.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract:
            "Compare two captures of the same content: requests, bytes, redundancy, cancels, time to first media byte, findings.",
        discussion: """
            For each figure (requests, connections, bytes fetched, unique bytes, redundancy, cancels, seeks, errors, \
            time to first media byte, duration) it prints A, B and the change; then the resources whose bytes fetched \
            differ, matched by URL path (hosts and ports differ between two recordings and are not compared); then the \
            finding codes whose counts differ and those found on one side only. --json prints the schema of docs/diff.md, \
            with the one-sided findings themselves. Exit status: 0 when nothing differs (the text is "no differences"), \
            1 when something does, 2 when a capture cannot be read.
                Example: rangetap diff before.rtap after.rtap.
            """
    )

    @Argument(help: "Capture A, the before (NAME.rtap).", completion: .directory)
    var a: String

    @Argument(help: "Capture B, the after (NAME.rtap).", completion: .directory)
    var b: String

    @Flag(name: .long, help: "Print JSON (docs/diff.md) instead of text.")
    var json = false

    func run() throws {
        let diff = CaptureDiff(try analysis(a), try analysis(b), pathA: a, pathB: b)
        if json {
            FileHandle.standardOutput.write(try diff.encoded())
            print()
        } else {
            print(CaptureDiffText.render(diff), terminator: "")
        }
        if !diff.identical { throw ExitCode(1) }
    }

    /// The analysis of the capture at `path`; exits 2 naming the file when it cannot be read.
    private func analysis(_ path: String) throws -> CaptureAnalysis {
        do {
            return try MediaAnalysis.analyze(path: path)
        } catch {
            let message = "\(error)"
            StandardError().write("rangetap: " + (message.contains(path) ? message : "\(path): \(message)"))
            throw ExitCode(2)
        }
    }
}
