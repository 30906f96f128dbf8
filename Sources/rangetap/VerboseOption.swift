import ArgumentParser
import Logging

/// `-v/--verbose`, the same in every command: debug logs through swift-log to stderr (stdout
/// stays for reports).
struct VerboseOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log debug details (choices made, addresses, files) to stderr.")
    var verbose = false

    /// Bootstraps swift-log to stderr (once, in the command's `run`) and returns the command's
    /// logger: debug with `-v`, warnings otherwise.
    func bootstrap(_ label: String) -> Logger {
        let level: Logger.Level = verbose ? .debug : .warning
        LoggingSystem.bootstrap { name in
            var handler = StreamLogHandler.standardError(label: name)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
