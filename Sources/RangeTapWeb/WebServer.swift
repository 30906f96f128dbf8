import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RangeTapCore

/// The live web view (docs/web.md): a capture, finished or growing, served as a page that
/// updates itself, on its own listener (loopback unless told otherwise), behind a token.
public final class WebServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let capture: LiveCapture
    private let token: String
    private let host: String
    private let requestedPort: Int
    private let channel = NIOLockedValueBox<(any Channel)?>(nil)

    /// Serves the capture at `path` on `host:port` (port 0: any free one) with `token`; `live`
    /// says the capture is still being written. `onReadError` is told once if the capture cannot
    /// be read on (the page shows it too).
    public init(
        path: String, host: String, port: Int, token: String, live: Bool,
        onReadError: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(WebError) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            capture = try LiveCapture(path: path, live: live, loop: group.next(), onReadError: onReadError)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.token = token
        self.host = host
        requestedPort = port
    }

    /// Binds and starts reading the capture; returns the bound port.
    public func start() async throws(WebError) -> Int {
        let capture = self.capture
        let token = self.token
        let host = self.host
        do {
            try await capture.loop.submit { capture.start() }.get()
        } catch {
            throw WebError("cannot start reading the capture: \(error)")
        }
        let portBox = NIOLockedValueBox(0)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let port = portBox.withLockedValue { $0 }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        WebRequestHandler(capture: capture, token: token, hosts: Self.hostValues(host, port: port)))
                }
            }
        let bound: any Channel
        do {
            bound = try await bootstrap.bind(host: host, port: requestedPort).get()
        } catch {
            throw WebError("cannot listen on \(URLAuthority.hostForURL(host)):\(requestedPort) for --web: \(error)")
        }
        let port = bound.localAddress?.port ?? requestedPort
        portBox.withLockedValue { $0 = port }
        channel.withLockedValue { $0 = bound }
        return port
    }

    /// The page's URL, token included.
    public func url(port: Int) -> String {
        let shown = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        return "http://\(URLAuthority.hostForURL(shown)):\(port)/?token=\(token)"
    }

    /// Stops serving.
    public func stop() async {
        if let bound = channel.withLockedValue({ $0 }) { try? await bound.close() }
        let capture = self.capture
        try? await capture.loop.submit { capture.stop() }.get()
        try? await group.shutdownGracefully()
    }

    /// The `Host` values that name a server on `host:port`: its address, and for loopback the
    /// names a browser on this machine uses.
    static func hostValues(_ host: String, port: Int) -> Set<String> {
        var names = [URLAuthority.hostForURL(host).lowercased()]
        if IPAddressLiteral.isLoopbackHost(host) || host == "0.0.0.0" || host == "::" {
            names += ["127.0.0.1", "localhost", "[::1]"]
        }
        return Set(names.map { "\($0):\(port)" })
    }
}
