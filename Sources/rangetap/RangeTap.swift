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
        subcommands: [
            RecordCommand.self, InspectCommand.self, SummaryCommand.self, DiffCommand.self, PlayCommand.self,
            ExportCommand.self, ImportCommand.self, ReplayCommand.self, ProbeCommand.self, ServeCommand.self,
            CACommand.self, ShapeCommand.self,
        ]
    )

    /// Runs the chosen subcommand. Bad arguments exit 2 (not argument-parser's 64), the one
    /// "bad input" status every rangetap command documents; help and --version exit 0.
    static func main() async {
        MallocTuning.apply(environment: ProcessInfo.processInfo.environment)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            exit(with: failure)
        } catch {
            if exitCode(for: error) == .validationFailure {
                exit(with: CommandFailure(line: fullMessage(for: error), status: .badInput))
            }
            exit(withError: error)
        }
    }

    /// Writes the failure's line to stderr and exits with its status: the one place a command's
    /// failure reaches the user.
    private static func exit(with failure: CommandFailure) -> Never {
        StandardError().write(failure.line)
        Foundation.exit(failure.status.rawValue)
    }
}
