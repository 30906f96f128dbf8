import Foundation

/// `withFixtureServer` or `withRecordingProxy` could not start; the description says what to fix.
public struct RangeTapTestingError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case notAFileURL(String)
        case noCapture(String)
        case badAddress(String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A capture was given as a URL that is not a `file:` URL.
    public static func notAFileURL(_ url: URL) -> Self { .init(.notAFileURL(url.absoluteString)) }
    /// No capture directory exists at the path given.
    public static func noCapture(_ path: String) -> Self { .init(.noCapture(path)) }
    /// The address a server bound could not be made into a URL.
    public static func badAddress(_ address: String) -> Self { .init(.badAddress(address)) }

    /// What went wrong, and what to pass instead.
    public var description: String {
        switch code {
        case .notAFileURL(let u):
            "\(u) is not a file URL: pass the .rtap capture directory as URL(fileURLWithPath:) or as a path"
        case .noCapture(let p):
            "no capture directory at \(p) (the current directory is \(FileManager.default.currentDirectoryPath)): pass an absolute path, for instance one built from #filePath, to a NAME.rtap directory recorded with bodies"
        case .badAddress(let a):
            "cannot make a URL of the bound address \(a)"
        }
    }
}
