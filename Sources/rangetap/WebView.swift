import RangeTapWeb

/// `--web` of `inspect` and `record`: the live web view of a capture (docs/web.md).
enum WebView {
    /// Starts the view of `capture` on `address` and prints its URL; returns the server and its
    /// bound port.
    static func start(capture: String, address: ListenAddress, live: Bool) async throws -> (WebServer, Int) {
        do {
            let server = try WebServer(
                path: capture, host: address.host, port: address.port, token: WebToken.generate(), live: live,
                onReadError: { StandardError().write("rangetap: live view: \($0)") })
            let port = try await server.start()
            StandardError().write("rangetap: live view of \(capture): \(server.url(port: port))")
            return (server, port)
        } catch {
            throw CommandFailure(error)
        }
    }
}
