import NIOCore
import RangeTapCore
import Synchronization

/// Which clients may connect (`--allow-client`): loopback peers always, others only from the
/// listed networks. A refused connection is closed before a byte is read and recorded as a
/// `refused` error, once per address (a client retrying, or a scan, does not fill the capture):
/// at most ``recordedLimit`` addresses are recorded.
final class ClientGate: Sendable {
    let networks: [ClientNetwork]
    private let recorded = Mutex<Set<String>>([])
    static let recordedLimit = 1024

    init(networks: [ClientNetwork]) {
        self.networks = networks
    }

    /// Why a client at `address` is refused; nil when it may connect.
    func refusal(of address: SocketAddress?) -> String? {
        guard !networks.isEmpty else { return nil }
        guard let ip = address?.ipAddress, let peer = IPAddressLiteral(ip) else {
            return "a client without an IP address is not in --allow-client"
        }
        if peer.isLoopback || networks.contains(where: { $0.contains(peer) }) { return nil }
        let list = networks.map(\.description).joined(separator: ", ")
        return "client \(ip) is not in --allow-client \(list): connection closed"
    }

    /// Records `refusal` unless its address was recorded already.
    func record(_ refusal: String, context: RecordingContext) {
        let first = recorded.withLock { seen -> Bool in
            guard seen.count < Self.recordedLimit else { return false }
            return seen.insert(refusal).inserted
        }
        guard first else { return }
        context.writer.record(
            .error(
                ErrorEvent(
                    t: context.clock.now(), exchange: nil, connection: nil, kind: .refused, message: refusal,
                    status: nil)))
    }
}
