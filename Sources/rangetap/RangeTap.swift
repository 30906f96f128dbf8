import ArgumentParser

/// The `rangetap` command: parses flags and calls the libraries.
@main
struct RangeTap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rangetap",
        abstract: "Record and inspect HTTP range traffic: every range request, chunk and cancel, timestamped.",
        version: "0.1.0",
        subcommands: [RecordCommand.self, InspectCommand.self, SummaryCommand.self, PlayCommand.self, ExportCommand.self, ReplayCommand.self, ProbeCommand.self, ServeCommand.self]
    )
}
