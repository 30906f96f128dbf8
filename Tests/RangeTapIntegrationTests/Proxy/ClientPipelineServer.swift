import Foundation
import NIOCore
import NIOPosix
import RangeTapCore
import RangeTapCurl
@testable import RangeTapProxy
import RangeTapTestSupport

/// ProxyServer's client pipeline on a real listening socket on 127.0.0.1, built as ProxyServer
/// builds it (`ProxyServer.addClientHandlers`), for tests that reach into the pipeline: `extra`
/// runs after the handlers are added to each accepted channel. One event loop, its own capture
/// writer and `CurlMulti`; ``stop()`` closes them all, the capture last.
final class ClientPipelineServer {
    /// The capture's path.
    let path: String
    /// The upstream side.
    let multi: CurlMulti
    /// The listening port.
    let port: Int
    private let writer: CaptureWriter
    private let group: MultiThreadedEventLoopGroup
    private let server: any Channel

    init(
        _ name: String, configure: (inout ProxyConfiguration) -> Void = { _ in },
        extra: @escaping @Sendable (any Channel) throws -> Void = { _ in }
    ) async throws {
        path = Paths.temporaryDirectory(name) + "/p.rtap"
        let clock = MonotonicClock()
        var config = ProxyConfiguration(listenPort: 0, capturePath: path)
        configure(&config)
        writer = try CaptureWriter(
            path: path,
            header: CaptureHeader(
                tool: "t", startedAt: "2026-11-23T00:00:00Z", bodies: true, redacted: true, listen: "127.0.0.1:0",
                upstream: nil), clock: clock)
        multi = try CurlMulti()
        let shared = RecordingContext(
            configuration: config, writer: writer, clock: clock, upstream: CurlUpstream(multi: multi), intercept: nil)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        server = try await ServerBootstrap(group: group)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try ProxyServer.addClientHandlers(to: channel, context: shared)
                    try extra(channel)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let p = server.localAddress?.port else { throw TestFailure("the test server has no port") }
        port = p
    }

    /// Stops listening, the event loop and libcurl, then closes the capture.
    func stop() async throws {
        try await server.close()
        try await group.shutdownGracefully()
        multi.shutdown()
        writer.close()
    }
}
