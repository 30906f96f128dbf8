#if os(Linux)
import Glibc
import NIOCore
import NIOEmbedded
import NIOPosix
@testable import RangeTapProxy
import Testing

/// The descriptor behind a NIO channel, which ``ClientWire`` holds a duplicate of to read
/// TCP_INFO after NIO closed its own: found for accepted and connected TCP channels (its peer is
/// the channel's peer), not for channels without a socket.
@Suite struct SocketDescriptorTests {
    @Test func anAcceptedAndAConnectedChannelHaveTheirSockets() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let accepted = group.next().makePromise(of: (any Channel).self)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                accepted.succeed(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: server.localAddress!.port!).get()
        let child = try await accepted.futureResult.get()
        for (channel, peer) in [(child, client.localAddress!.port!), (client, server.localAddress!.port!)] {
            let fd = try await channel.eventLoop.submit { SocketDescriptor.of(channel) }.get()
            let descriptor = try #require(fd, "no descriptor for \(channel)")
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let rc = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
            }
            #expect(rc == 0 && Int(UInt16(bigEndian: address.sin_port)) == peer)
        }
        // Twice: the second lookup reads the offsets found by the first.
        let again = try await child.eventLoop.submit { SocketDescriptor.of(child) }.get()
        #expect(again != nil)
        try await client.close()
        try await server.close()
        try await group.shutdownGracefully()
    }

    @Test func anEmbeddedChannelHasNone() {
        #expect(SocketDescriptor.of(EmbeddedChannel()) == nil)
    }
}
#endif
