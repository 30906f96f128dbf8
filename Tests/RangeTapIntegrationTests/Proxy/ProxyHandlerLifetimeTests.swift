import Foundation
import NIOCore
import RangeTapCore
@testable import RangeTapProxy
import RangeTapTestSupport
import Synchronization
import Testing

/// Each client connection's ProxyHandler is freed once the connection is closed.
@Suite struct ProxyHandlerLifetimeTests {
    final class Weak: @unchecked Sendable { weak var handler: ProxyHandler? }

    @Test(.timeLimit(.minutes(1))) func proxyHandlersAreFreedWithTheirConnections() async throws {
        let handlers = Mutex<[Weak]>([])
        let server = try await ClientPipelineServer(
            "handler-lifetime",
            extra: { channel in
                let w = Weak()
                w.handler = try channel.pipeline.syncOperations.handler(type: ProxyHandler.self)
                handlers.withLock { $0.append(w) }
            })
        let port = server.port
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
        try await server.stop()
    }
}
