import Foundation
import NIOCore
import NIOPosix
import RangeTapCore
import RangeTapCurl
@testable import RangeTapProxy
import RangeTapTestSupport
import Synchronization
import Testing

/// Each client connection's ProxyHandler is freed once the connection is closed.
@Suite struct ProxyHandlerLifetimeTests {
    final class Weak: @unchecked Sendable { weak var handler: ProxyHandler? }

    @Test(.timeLimit(.minutes(1))) func proxyHandlersAreFreedWithTheirConnections() async throws {
        let path = Paths.temporaryDirectory("handler-lifetime") + "/p.rtap"
        let clock = MonotonicClock()
        let writer = try CaptureWriter(path: path, header: CaptureHeader(tool: "t", startedAt: "2026-11-23T00:00:00Z", bodies: true, redacted: true, listen: "127.0.0.1:0", upstream: nil), clock: clock)
        let multi = try CurlMulti()
        let shared = RecordingContext(configuration: ProxyConfiguration(listenPort: 0, capturePath: path), writer: writer, clock: clock, multi: multi, intercept: nil)
        let handlers = Mutex<[Weak]>([])
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try ProxyServer.addClientHandlers(to: channel, context: shared)
                    let w = Weak()
                    w.handler = try channel.pipeline.syncOperations.handler(type: ProxyHandler.self)
                    handlers.withLock { $0.append(w) }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        for _ in 0..<10 {
            let client = try RawClient(port: port)
            try client.send("GET ftp://127.0.0.1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            _ = try client.readToClose()
        }
        var alive = 10
        for _ in 0..<100 where alive > 0 {
            try await Task.sleep(for: .milliseconds(20))
            alive = handlers.withLock { $0.filter { $0.handler != nil }.count }
        }
        #expect(handlers.withLock { $0.count } == 10)
        #expect(alive == 0, "\(alive) of 10 closed connections' handlers are still alive")
        try await server.close()
        try await group.shutdownGracefully()
        multi.shutdown()
        writer.close()
    }
}
