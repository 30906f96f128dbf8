#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// The file descriptor behind a NIO socket channel, which NIO does not make public.
///
/// Found by reflection (`BaseSocketChannel.socket` → `BaseSocket.descriptor`) and accepted only
/// if it is a TCP socket whose peer and local ports are the channel's own; otherwise nil and the
/// caller goes without (``ClientWire`` then relies on the readings its handler takes).
enum SocketDescriptor {
    static func of(_ channel: any Channel) -> Int32? {
        guard let socket = field("socket", in: channel),
              let fd = field("descriptor", in: socket) as? Int32, fd >= 0,
              let remotePort = channel.remoteAddress?.port, let localPort = channel.localAddress?.port
        else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let peer = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard peer == 0, port(of: storage) == remotePort else { return nil }
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let local = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard local == 0, port(of: storage) == localPort else { return nil }
        return fd
    }

    private static func port(of storage: sockaddr_storage) -> Int? {
        var s = storage
        switch Int32(s.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }

    private static func field(_ name: String, in value: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: value)
        while let m = mirror {
            for child in m.children where child.label == name { return child.value }
            mirror = m.superclassMirror
        }
        return nil
    }
}
