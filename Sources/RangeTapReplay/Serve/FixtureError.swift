import Foundation
import NIOCore
import RangeTapSystem

/// A fixture server or a `--through` replay could not run; the description says what to fix.
public struct FixtureError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case capture(String)
        case noBodies(String)
        case cannotRead(String, String)
        case bindFailed(String, String)
        case notStarted
        case badProxyURL(String)
        case proxyFailed(String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The capture could not be opened or read.
    public static func capture(_ what: String) -> Self { .init(.capture(what)) }
    /// The capture was recorded with `--no-bodies`.
    public static func noBodies(_ path: String) -> Self { .init(.noBodies(path)) }
    /// A file of the capture could not be read.
    public static func cannotRead(_ path: String, _ reason: String) -> Self { .init(.cannotRead(path, reason)) }
    /// The listening socket could not be bound.
    public static func bindFailed(_ address: String, _ reason: String) -> Self { .init(.bindFailed(address, reason)) }
    /// Binding `address` failed with `error`, said in the system's words (not NIO's).
    public static func cannotListen(_ address: String, _ error: any Error) -> Self {
        guard let io = error as? IOError else { return .init(.bindFailed(address, "\(error)")) }
        if io.errnoCode == EADDRINUSE {
            return .init(.bindFailed(address, "it is already in use (another rangetap or server?)"))
        }
        return .init(.bindFailed(address, System.errorText(io.errnoCode)))
    }
    /// The server was used before ``FixtureServer/start()``.
    public static var notStarted: Self { .init(.notStarted) }
    /// `--through` was given something other than an `http://host:port` URL.
    public static func badProxyURL(_ url: String) -> Self { .init(.badProxyURL(url)) }
    /// The proxy under test could not be reached or broke the connection.
    public static func proxyFailed(_ what: String) -> Self { .init(.proxyFailed(what)) }

    public var description: String {
        switch code {
        case .capture(let w): "cannot read the capture: \(w)"
        case .noBodies(let p):
            "\(p) was recorded with --no-bodies: serving needs the body bytes. Record again without --no-bodies."
        case .cannotRead(let p, let r): "cannot read \(p): \(r)"
        case .bindFailed(let a, let r):
            "cannot listen on \(a): \(r); choose another port (serve: --listen 127.0.0.1:PORT or -p PORT; replay --through: --origin-port PORT)"
        case .notStarted: "the fixture server has not been started: call start() first"
        case .badProxyURL(let u):
            "--through \(u): expected http://HOST:PORT of an HTTP proxy placed in front of the fixture origin (https is not supported)"
        case .proxyFailed(let w): "the proxy under test failed: \(w)"
        }
    }
}
