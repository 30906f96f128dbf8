import ArgumentParser

/// A command that cannot go on: the line for stderr and the status to exit with.
///
/// Commands throw it from `run()`; ``RangeTap/main()`` writes ``line`` to stderr and exits
/// with ``status``, the one place the CLI reports a failure. Bad input, or anything that
/// stops a command before it has done its work, exits 2 (``ExitCode/badInput``), the status
/// every rangetap command documents.
struct CommandFailure: Error, CustomStringConvertible {
    /// The whole stderr line, `rangetap: ` included.
    let line: String
    /// The status the process exits with.
    let status: ExitCode

    /// `rangetap: <error>`.
    init(_ error: any Error, status: ExitCode = .badInput) {
        self.init(message: "\(error)", status: status)
    }

    /// `rangetap: <message>`.
    init(message: String, status: ExitCode = .badInput) {
        self.init(line: "rangetap: " + message, status: status)
    }

    /// `line` as it is (it carries its own prefix).
    init(line: String, status: ExitCode) {
        self.line = line
        self.status = status
    }

    /// The stderr line.
    var description: String { line }
}

extension ExitCode {
    /// Status 2: bad arguments or input, or a command that could not start its work.
    static let badInput = ExitCode(2)
}
