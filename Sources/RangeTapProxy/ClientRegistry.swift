import NIOCore
import Synchronization

/// The open client connections, so ``ProxyServer/stop()`` can close them.
final class ClientRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Tracks `channel` until it closes.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = channels.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// The channels open now.
    var open: [any Channel] { channels.withLock { Array($0.values) } }

    /// How many are open.
    var count: Int { channels.withLock { $0.count } }
}
