/// An upstream response head that cannot be forwarded at all; the proxy answers 502 instead.
public struct ForwardedHeadError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case missingStatusLine(String)
        case bareCRInStatusLine(String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The first line is not `HTTP/x.y NNN reason` (`line` is what came instead, raw).
    public static func missingStatusLine(_ line: String) -> Self { .init(.missingStatusLine(String(line.prefix(200)))) }
    /// The status line holds a bare CR (response splitting).
    public static func bareCRInStatusLine(_ line: String) -> Self {
        .init(.bareCRInStatusLine(String(line.prefix(200))))
    }

    public var description: String {
        switch code {
        case .missingStatusLine(let line):
            "the upstream response does not start with a status line such as \"HTTP/1.1 200 OK\" (got \(line.debugDescription)): it cannot be forwarded; check the upstream URL points at an HTTP/1.x server"
        case .bareCRInStatusLine(let line):
            "the upstream status line \(line.debugDescription) holds a bare CR, which a client could read as the start of a field the server did not send: refused"
        }
    }
}
