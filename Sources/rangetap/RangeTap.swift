import ArgumentParser
import Foundation
import RangeTapProxy

/// The `rangetap` command: parses flags and calls the libraries.
@main
struct RangeTap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rangetap",
        abstract: "Record and inspect HTTP range traffic: every range request, chunk and cancel, timestamped.",
        version: RangeTapVersion.current,
        subcommands: [RecordCommand.self, InspectCommand.self, SummaryCommand.self, PlayCommand.self, ExportCommand.self, ReplayCommand.self, ProbeCommand.self, ServeCommand.self, CACommand.self, ShapeCommand.self, ImportCommand.self]
    )

    /// Runs the chosen subcommand. Bad arguments exit 2 (not argument-parser's 64), the one
    /// "bad input" status every rangetap command documents; help and --version exit 0.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
