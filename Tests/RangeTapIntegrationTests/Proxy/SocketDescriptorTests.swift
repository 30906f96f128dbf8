#if os(Linux)
import Glibc
import NIOCore
import NIOEmbedded
import NIOPosix
@testable import RangeTapProxy
import Testing

/// The duplicate descriptor ``ClientWire`` holds to read TCP_INFO after NIO closed its own: made
/// through NIO's public transport access for accepted and connected TCP channels (its peer is the
/// channel's peer), none for channels without a socket, and closed when asked.
@Suite struct SocketDescriptorTests {
    @Test func anAcceptedAndAConnectedChannelAreDuplicatedThroughNIOsPublicAccess() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let accepted = group.next().makePromise(of: (any Channel).self)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                accepted.succeed(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try await ClientBootstrap(group: group).connect(
            host: "127.0.0.1", port: server.localAddress!.port!
        ).get()
        let child = try await accepted.futureResult.get()
        for (channel, peer) in [(child, client.localAddress!.port!), (client, server.localAddress!.port!)] {
            let held = try #require(
                try await channel.eventLoop.submit { ClientSocket.duplicating(channel) }.get(),
                "no descriptor for \(channel)")
            let port = held.withDescriptor { descriptor -> Int? in
                var address = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let rc = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
                }
                return rc == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
            }
            #expect(port == peer)
            held.close()
            #expect(held.withDescriptor { $0 } == nil, "closed: no descriptor any more")
        }
        try await client.close()
        try await server.close()
        try await group.shutdownGracefully()
    }

    @Test func anEmbeddedChannelHasNone() {
        #expect(ClientSocket.duplicating(EmbeddedChannel()) == nil)
    }
}
#endif
