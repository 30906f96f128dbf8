/// A report could not be written.
public struct ReportError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case cannotWrite(path: String, reason: String)
    }

    private let code: Code

    /// The output file could not be written.
    static func cannotWrite(path: String, reason: String) -> ReportError {
        ReportError(code: .cannotWrite(path: path, reason: reason))
    }

    public var description: String {
        switch code {
        case .cannotWrite(let path, let reason):
            "cannot write \(path): \(reason); check that its directory exists and is writable"
        }
    }
}
