#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import RangeTapCore

/// The client socket as TCP sees it, on the connection's event loop: bytes the pipeline handed
/// to the socket, and bytes the client's TCP stack acknowledged (`TCP_INFO.tcpi_bytes_acked`).
///
/// ``ClientWireHandler`` counts writes and takes the exact reading when the client's close or
/// reset is seen on a read, before NIO closes the socket; ``ProxyHandler`` refreshes the
/// reading as writes complete, which is all there is when a close is only seen by a failed write.
final class ClientWire {
    /// Bytes written to the socket so far (heads, body and chunk framing).
    private(set) var written: Int64 = 0
    /// The last reading of acknowledged bytes, and whether it was taken at the close.
    private(set) var acked: (bytes: Int64, atClose: Bool)?
    /// Whether there is no TCP_INFO to read: the platform gives none, or the channel is no
    /// socket (an `EmbeddedChannel` in the handler tests). Delivery is then what the writes say.
    private(set) var unavailable = false

    /// A duplicate of the socket's descriptor, held so TCP_INFO can still be read after NIO
    /// closed its own (the socket lives until both are closed); nil when it could not be had.
    private(set) var socket: ClientSocket?

    /// Whether a duplicate of the descriptor is held: then the reading at the close is exact
    /// and readings before each flush are not needed.
    var holdsDescriptor: Bool { socket != nil }

    /// Counts `n` more bytes handed to the socket.
    func wrote(_ n: Int) { written += Int64(n) }

    /// Channel active: holds a duplicate of the socket so the close can be measured whichever
    /// way NIO sees it (a read, a failed write, a hang-up), after NIO closed its descriptor.
    func hold(_ channel: any Channel) {
        guard socket == nil else { return }
        socket = ClientSocket.duplicating(channel)
        if socket == nil && !(channel is any SocketOptionProvider) { unavailable = true }
    }

    /// Channel inactive: the final reading from the held descriptor (unless one was already
    /// taken at the close), then lets it go.
    func release() {
        #if os(Linux)
        guard let socket else { return }
        defer {
            socket.close()
            self.socket = nil
        }
        guard acked?.atClose != true else { return }
        if let bytes = socket.withDescriptor(Self.bytesAcked) { acked = (bytes, true) }
        #endif
    }

    #if os(Linux)
    /// `TCP_INFO.tcpi_bytes_acked` of socket `fd`, read now; nil when the kernel gives none.
    private static func bytesAcked(_ fd: Int32) -> Int64? {
        var info = LinuxTCPInfo()
        var length = socklen_t(MemoryLayout<LinuxTCPInfo>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0, length >= 128 else { return nil }
        return Int64(info.bytesAcked)
    }
    #endif

    /// Reads TCP_INFO now: from the held descriptor with one `getsockopt(2)`, else through NIO
    /// (on the event loop, its future is already complete). `atClose` marks the reading taken
    /// when the close was seen: later reads cannot change it.
    func refresh(_ channel: any Channel, atClose: Bool = false) {
        if acked?.atClose == true { return }
        #if os(Linux)
        if let socket {
            // Every settling check and write completion comes here: no future, no closure.
            if let bytes = socket.withDescriptor(Self.bytesAcked) { acked = (bytes, atClose) }
            return
        }
        guard let provider = channel as? any SocketOptionProvider, channel.isActive else { return }
        let reading: EventLoopFuture<LinuxTCPInfo> = provider.unsafeGetSocketOption(level: .tcp, name: .tcp_info)
        let bound = NIOLoopBound(self, eventLoop: channel.eventLoop)
        reading.whenComplete { result in
            switch result {
            case .success(let info):
                bound.value.acked = (Int64(info.bytesAcked), atClose)
            case .failure:
                break
            }
        }
        #else
        unavailable = true
        #endif
    }
}

@available(*, unavailable)
extension ClientWire: Sendable {}

#if os(Linux)
/// The head of Linux's `struct tcp_info` up to `tcpi_bytes_acked` (kernel 4.1+): glibc's
/// `tcp_info` stops at `tcpi_total_retrans` (104 bytes); the kernel fills what fits.
struct LinuxTCPInfo {
    var classic = tcp_info()
    var pacingRate: UInt64 = 0
    var maxPacingRate: UInt64 = 0
    /// Bytes the peer acknowledged (RFC 4898 tcpEStatsAppHCThruOctetsAcked), at offset 120.
    var bytesAcked: UInt64 = 0
}
#endif
