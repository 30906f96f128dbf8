import ArgumentParser

@main
struct RangeTap: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rangetap", abstract: "Record and inspect HTTP range traffic.")
}
