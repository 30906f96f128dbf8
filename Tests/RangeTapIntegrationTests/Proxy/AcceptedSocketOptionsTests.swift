import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The options a client's socket has once rangetap has accepted it, read with `getsockopt` on the
/// accepted socket itself (found by its ports in `/proc/net/tcp`), not from rangetap's settings:
/// TCP_NODELAY (responses leave without Nagle's wait) and, with `--client-sndbuf`, SO_SNDBUF,
/// both set when the connection is set up (`ProxyServer.configureClient`).
@Suite(.serialized)
struct AcceptedSocketOptionsTests {
    @Test func anAcceptedClientSocketHasNoDelay() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port)
        let accepted = try acceptedSocket(proxyPort: proxy.port, clientPort: localPort(of: client.fd))
        #expect(intOption(accepted, Int32(IPPROTO_TCP), TCP_NODELAY) == Int32(1))
        // The default send buffer is the kernel's, not a locked size.
        #expect(intOption(accepted, SOL_SOCKET, SO_SNDBUF) != Int32(2 * 16384))
        client.close()
        _ = try await proxy.stopAndRead()
    }

    @Test func clientSendBufferSetsTheAcceptedSocketsSendBuffer() async throws {
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        let client = try RawClient(port: proxy.port)
        let accepted = try acceptedSocket(proxyPort: proxy.port, clientPort: localPort(of: client.fd))
        // Linux doubles the size asked for (socket(7)).
        #expect(intOption(accepted, SOL_SOCKET, SO_SNDBUF) == Int32(2 * 16384))
        #expect(intOption(accepted, Int32(IPPROTO_TCP), TCP_NODELAY) == Int32(1))
        client.close()
        _ = try await proxy.stopAndRead()
    }
}

/// The local port of socket `fd`.
private func localPort(of fd: Int32) throws -> Int {
    var addr = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let rc = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard rc == 0 else { throw TestFailure("getsockname: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// This process's descriptor of the socket rangetap accepted from `clientPort` on `proxyPort`
/// (local port `proxyPort`, remote port `clientPort`), once the connection is set up: rangetap
/// holds a duplicate of it from `channelActive` on (`ClientWire.hold`), so two descriptors of the
/// socket mean its options are set. Waits up to 5 s.
private func acceptedSocket(proxyPort: Int, clientPort: Int) throws -> Int32 {
    let deadline = Date().addingTimeInterval(5)
    var found: [Int32] = []
    while Date() < deadline {
        found = ProcFiles.socketDescriptors { $0.localPort == proxyPort && $0.remotePort == clientPort }
        if found.count >= 2 { return found[0] }
        usleep(10_000)
    }
    throw TestFailure(
        "no accepted socket from client port \(clientPort) on \(proxyPort) within 5 s (\(found.count) descriptors of it)"
    )
}

/// An int-valued socket option of `fd`; nil when `getsockopt` fails.
private func intOption(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32? {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, level, name, &value, &length) == 0 ? value : nil
}
