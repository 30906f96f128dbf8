/// A report could not be written.
public struct ReportError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case cannotWrite(path: String, reason: String)
        case noSuchExchange(Int, count: Int)
        case notRepeatable(Int, reason: String)
    }

    private let code: Code

    /// The output file could not be written.
    static func cannotWrite(path: String, reason: String) -> ReportError {
        ReportError(code: .cannotWrite(path: path, reason: reason))
    }

    /// The capture has no exchange with that id.
    static func noSuchExchange(_ id: Int, count: Int) -> ReportError {
        ReportError(code: .noSuchExchange(id, count: count))
    }

    /// The exchange cannot be repeated as a request (a CONNECT tunnel, no URL).
    static func notRepeatable(_ id: Int, reason: String) -> ReportError {
        ReportError(code: .notRepeatable(id, reason: reason))
    }

    public var description: String {
        switch code {
        case .cannotWrite(let path, let reason):
            "cannot write \(path): \(reason); check that its directory exists and is writable"
        case .noSuchExchange(let id, let count):
            "the capture has no exchange #\(id)\(count == 0 ? " (it has none)" : "; inspect lists its \(count) exchanges with their ids")"
        case .notRepeatable(let id, let reason):
            "exchange #\(id) cannot be repeated with curl: \(reason)"
        }
    }
}
