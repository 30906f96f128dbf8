import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore

/// `rangetap shape` talks to a running `record` over the run's control socket
/// (``ControlListener``): a Unix socket in this user's private directory, beside the run's token,
/// which no request through the proxy can reach (mitmproxy's CVE-2025-23217 was a control
/// endpoint any web page could drive through the proxy). On the proxy, the reserved host
/// `rangetap.invalid` is the CA page (``CAPage``) and nothing else. The endpoint answers:
///
/// - `POST http://rangetap.invalid/shape` with `Content-Type: application/x-rangetap-control`
///   (no form or text type a page may send freely) and `Rangetap-Token:` the run's
///   ``ControlToken``: the spec in force; with `?SPEC` (`rate=500kbit`, `off`, …) a new spec
///   from now on.
/// - A request that carries an `Origin` field (browsers add one; `rangetap shape` never does)
///   gets no answer at all: the connection is closed.
public enum LinkControlRequest {
    /// The reserved host name: the `.invalid` top-level domain never resolves (RFC 2606, RFC 6761),
    /// so it can never be a real origin.
    public static let host = "rangetap.invalid"

    /// Whether `head` is meant for rangetap itself (the CA page), not for an origin.
    static func isReservedHost(_ head: HTTPRequestHead) -> Bool {
        // Every request passes here: bytes, no lowercased copies (the host is ASCII; URLAuthority
        // splits on bytes too).
        let target = head.uri.utf8
        let prefix = absolutePrefix.count
        if target.count >= prefix, HeaderByte.equalsIgnoringASCIICase(target.prefix(prefix), absolutePrefix) {
            if target.count == prefix || target[target.index(target.startIndex, offsetBy: prefix)] == UInt8(ascii: "/")
            {
                return true
            }
        }
        guard !HTTPScheme.isHTTP(head.uri) else { return false }
        guard let field = head.headers.first(name: "host") else { return false }
        return HeaderByte.equalsIgnoringASCIICase(URLAuthority(field).host.utf8, hostBytes)
    }

    /// `http://rangetap.invalid`, the start of an absolute-form control target.
    private static let absolutePrefix = Array("http://\(host)".utf8)
    private static let hostBytes = Array(host.utf8)

    /// The content type a control request carries: not one of the CORS-safelisted types
    /// (`text/plain`, forms), so a page cannot send it cross-origin without a preflight.
    public static let contentType = "application/x-rangetap-control"
    /// The field that carries the run's token.
    public static let tokenField = "Rangetap-Token"

    /// The status and text of the answer to `head`, after carrying it out; nil when the request
    /// gets no answer (it came from a web page: the connection is closed).
    static func answer(_ head: HTTPRequestHead, context: RecordingContext) -> (HTTPResponseStatus, String)? {
        if head.headers.contains(name: "origin") { return nil }
        guard head.method == .POST else {
            return (.methodNotAllowed, "rangetap: control requests are POST (rangetap shape sends them)\n")
        }
        let type = head.headers.first(name: "content-type").map {
            $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
        guard type == contentType else {
            return (
                .unsupportedMediaType,
                "rangetap: a control request carries Content-Type: \(contentType) (rangetap shape sends it)\n"
            )
        }
        guard ControlToken.matches(head.headers.first(name: tokenField), context.controlToken) else {
            return (
                .forbidden,
                "rangetap: missing or wrong \(tokenField); rangetap shape reads this run's token from \(ControlToken.path(port: context.boundPort.load(ordering: .relaxed)))\n"
            )
        }
        let target = URLParts(head.uri)
        let path = String(target.path)
        guard path == "/shape" else {
            return (.notFound, "rangetap: unknown control path \(path); use /shape\n")
        }
        guard let query = target.query.map(String.init), !query.isEmpty else {
            guard let shape = context.shape else { return (.ok, "off (record was started without --shape)\n") }
            return (.ok, shape.current.spec.description + "\n")
        }
        let text = query.removingPercentEncoding ?? query
        do {
            let spec = try ShapeSpec(parsing: text)
            try context.reshape(spec)
            return (.ok, spec.description + "\n")
        } catch {
            return (.badRequest, "rangetap: \(error)\n")
        }
    }
}
