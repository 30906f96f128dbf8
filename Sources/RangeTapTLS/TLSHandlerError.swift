/// How a TLS connection terminated by ``TLSHandler`` failed.
public enum TLSHandlerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The handshake failed. `reasons` are libssl's reason codes in upper case
    /// (`TLSV1_ALERT_UNKNOWN_CA`, `WRONG_VERSION_NUMBER`); `verification` says why the peer's
    /// certificate did not verify, when that is why, and `nameMismatch` whether it is because
    /// the certificate does not name the host.
    case handshakeFailed(reasons: [String], verification: String?, nameMismatch: Bool)
    /// Decrypting or encrypting failed after the handshake (a bad record, an alert).
    case failed(reasons: [String])
    /// The peer closed the connection without close_notify: how players cancel, or a client that
    /// gave up during the handshake.
    case uncleanShutdown
    /// libssl could not make a session (out of memory, or a host name it refused).
    case sessionUnavailable

    /// libssl's reason codes, empty where there are none.
    public var reasons: [String] {
        switch self {
        case .handshakeFailed(let reasons, _, _), .failed(let reasons): reasons
        case .uncleanShutdown, .sessionUnavailable: []
        }
    }

    public var description: String {
        switch self {
        case .handshakeFailed(let reasons, let verification, _):
            let why = reasons.isEmpty ? "no reason given" : reasons.joined(separator: ", ")
            return "TLS handshake failed: \(why)" + (verification.map { " (certificate: \($0))" } ?? "")
        case .failed(let reasons):
            return "TLS failed: \(reasons.isEmpty ? "no reason given" : reasons.joined(separator: ", "))"
        case .uncleanShutdown: return "the peer closed the TLS connection without close_notify"
        case .sessionUnavailable: return "libssl could not start a TLS session (out of memory?)"
        }
    }
}
