import ArgumentParser
import Foundation
import RangeTapCore

/// `rangetap summary`: one line per exchange and the totals of a capture.
struct SummaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Print each exchange of a capture (range asked, status, Content-Range, bytes, cancels) and totals.",
        discussion: "Example: rangetap summary session.rtap. Exit status: 0, or 2 when the capture cannot be read."
    )

    @Argument(help: "Capture directory (NAME.rtap).", completion: .directory)
    var capture: String

    func run() throws {
        let report: CaptureSummaryReport
        do {
            report = try CaptureSummaryReport(path: capture)
        } catch {
            throw CommandFailure(error)
        }
        print(report.text, terminator: "")
    }
}
