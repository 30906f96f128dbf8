import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore

/// `rangetap shape` talks to a running `record` through its own listener: a request for the
/// reserved host `rangetap.invalid` (RFC 2606: it can never be a real origin), in absolute form
/// or by its Host field, from a loopback peer.
///
/// - `GET http://rangetap.invalid/shape`: the spec in force.
/// - `PUT http://rangetap.invalid/shape?SPEC`: a new spec from now on (`rate=500kbit`, `off`, …).
public enum LinkControlRequest {
    /// The reserved host name.
    public static let host = "rangetap.invalid"

    /// Whether `head` is meant for rangetap itself.
    static func isControl(_ head: HTTPRequestHead) -> Bool {
        // Every request passes here: bytes, no lowercased copies (the host is ASCII; URLAuthority
        // splits on bytes too).
        let target = head.uri.utf8
        let prefix = absolutePrefix.count
        if target.count >= prefix, HeaderByte.equalsIgnoringASCIICase(target.prefix(prefix), absolutePrefix) {
            if target.count == prefix || target[target.index(target.startIndex, offsetBy: prefix)] == UInt8(ascii: "/") { return true }
        }
        guard !HTTPScheme.isHTTP(head.uri) else { return false }
        guard let field = head.headers.first(name: "host") else { return false }
        return HeaderByte.equalsIgnoringASCIICase(URLAuthority(field).host.utf8, hostBytes)
    }

    /// `http://rangetap.invalid`, the start of an absolute-form control target.
    private static let absolutePrefix = Array("http://\(host)".utf8)
    private static let hostBytes = Array(host.utf8)

    /// The status and text of the answer to `head`, after carrying it out.
    static func answer(_ head: HTTPRequestHead, peer: SocketAddress?, context: RecordingContext) -> (HTTPResponseStatus, String) {
        guard peer.map(isLoopback) ?? false else {
            return (.forbidden, "rangetap: the link can only be changed from this machine (127.0.0.1)\n")
        }
        let target = URLParts(head.uri)
        let path = String(target.path)
        guard path == "/shape" else {
            return (.notFound, "rangetap: unknown control path \(path); use /shape\n")
        }
        switch head.method {
        case .GET:
            guard let shape = context.shape else { return (.ok, "off (record was started without --shape)\n") }
            return (.ok, shape.current.spec.description + "\n")
        case .PUT, .POST:
            let query = target.query.map(String.init) ?? ""
            let text = query.removingPercentEncoding ?? query
            do {
                let spec = try ShapeSpec(parsing: text)
                try context.reshape(spec)
                return (.ok, spec.description + "\n")
            } catch {
                return (.badRequest, "rangetap: \(error)\n")
            }
        default:
            return (.methodNotAllowed, "rangetap: use GET or PUT on /shape\n")
        }
    }

    private static func isLoopback(_ address: SocketAddress) -> Bool {
        guard let ip = address.ipAddress else { return false }
        return IPAddressLiteral(ip)?.isLoopback ?? false
    }
}
