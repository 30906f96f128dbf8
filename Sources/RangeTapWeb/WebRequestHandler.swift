import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore

/// One connection to the web view: each request's token and `Host` checked, then the page, the
/// event stream or an exchange's detail (docs/web.md). Runs on the capture's event loop.
final class WebRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let capture: LiveCapture
    private let token: String
    private let hosts: Set<String>
    private var head: HTTPRequestHead?

    /// `hosts`: the `Host` values that name this server (lower case, with the port).
    init(capture: LiveCapture, token: String, hosts: Set<String>) {
        self.capture = capture
        self.token = token
        self.hosts = hosts
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            answer(head, context: context)
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let url = URLParts(head.uri)
        // DNS rebinding: a page of another origin that resolves its name to this address sends
        // its own name in Host.
        let local = context.channel.localAddress.flatMap { a in
            a.ipAddress.flatMap { ip in a.port.map { "\(URLAuthority.hostForURL(ip)):\($0)" } }
        }
        guard let host = head.headers.first(name: "host")?.lowercased(), hosts.contains(host) || host == local else {
            return respond(.forbidden, "rangetap: this web view answers only to its own address\n", context: context)
        }
        let given = url.query.flatMap { query in
            query.split(separator: "&").first { $0.hasPrefix("token=") }.map { $0.dropFirst("token=".count) }
        }
        guard WebToken.matches(given, token) else {
            return respond(
                .forbidden, "rangetap: missing or wrong token: open the URL rangetap printed (it ends in ?token=…)\n",
                context: context)
        }
        guard head.method == .GET || head.method == .HEAD else {
            return respond(.methodNotAllowed, "rangetap: the web view answers GET\n", context: context)
        }
        let path = String(url.path)
        switch path {
        case "/", "/index.html":
            respond(.ok, LivePage.html, type: "text/html; charset=utf-8", context: context)
        case "/api/events":
            startStream(head, context: context)
        default:
            if path.hasPrefix("/api/exchange/"), let id = Int(path.dropFirst("/api/exchange/".count)) {
                guard let detail = capture.detail(id) else {
                    return respond(.notFound, "rangetap: no exchange \(id) in this capture\n", context: context)
                }
                let json = (try? JSONEncoder().encode(detail)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                respond(.ok, json, type: "application/json", context: context)
            } else {
                respond(.notFound, "rangetap: no \(path) here\n", context: context)
            }
        }
    }

    private func startStream(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
            promise: nil)
        capture.subscribe(context.channel)
    }

    private func respond(
        _ status: HTTPResponseStatus, _ text: String, type: String = "text/plain; charset=utf-8",
        context: ChannelHandlerContext
    ) {
        var body = context.channel.allocator.buffer(capacity: text.utf8.count)
        body.writeString(text)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        // The page runs nothing from elsewhere and no inline handlers built from data.
        headers.add(
            name: "Content-Security-Policy",
            value:
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
