/// The totals of a recording, one definition for `record`'s stop line and `rangetap summary`'s
/// last line (they must agree on the same capture):
/// - *body bytes*: what the client was sent in response bodies (received from origins, or served
///   by rangetap), tunnels left out;
/// - *tunnels*: CONNECT tunnels, and the bytes relayed down the ones rangetap did not intercept
///   (an intercepted tunnel's bytes are its requests' bodies, already counted, encrypted);
/// - *connections*: client connections opened, the `rangetap shape` control connections included
///   (they are connections to the proxy like any other).
public struct CaptureTotals: Sendable, Equatable {
    /// Client connections opened.
    public var connections = 0
    /// Exchanges finished (ended, cancelled or failed), tunnels included.
    public var exchanges = 0
    /// Response body bytes sent to clients (received or served), tunnels left out.
    public var bytes: Int64 = 0
    /// Exchanges the client cancelled.
    public var cancels = 0
    /// Exchanges or connections that failed.
    public var errors = 0
    /// CONNECT tunnels.
    public var tunnels = 0
    /// Bytes relayed down tunnels rangetap did not intercept.
    public var opaqueBytes: Int64 = 0

    /// No totals yet.
    public init() {}

    /// Counts a finished exchange; `tunnel` is its `tunnel` event when it is a CONNECT.
    public mutating func add(_ record: ExchangeRecord, tunnel: TunnelEvent? = nil) {
        exchanges += 1
        if record.method == "CONNECT" {
            tunnels += tunnel == nil ? 0 : 1
            if let tunnel, tunnel.intercepted != true { opaqueBytes = opaqueBytes.addingSaturating(tunnel.down) }
        } else {
            bytes = bytes.addingSaturating(record.bytesSent)
        }
        switch record.outcome {
        case .cancelled: cancels += 1
        case .failed: errors += 1
        default: break
        }
    }

    /// `7 exchanges on 7 connections, 9474430 body bytes, 0 cancelled, 0 errors`, then
    /// `, 2 tunnels (5120 bytes relayed opaquely)` when there were tunnels.
    public var line: String {
        var s =
            "\(exchanges) exchanges on \(connections) connections, \(bytes) body bytes, \(cancels) cancelled, \(errors) errors"
        if tunnels > 0 {
            s += ", \(tunnels) tunnel\(tunnels == 1 ? "" : "s") (\(opaqueBytes) bytes relayed opaquely)"
        }
        return s
    }
}
