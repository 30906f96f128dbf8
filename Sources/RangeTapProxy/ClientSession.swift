/// What a client pipeline's ``ProxyHandler`` serves: the plain listener, or the decrypted
/// inside of an intercepted CONNECT tunnel.
struct ClientSession: Sendable {
    /// What the handler inside a tunnel takes over from the one that handled the CONNECT.
    struct Inherited: Sendable {
        /// The client connection's id.
        var connection: Int
        /// Requests already seen on it (the CONNECT among them).
        var requests: Int
        /// The socket's send buffer.
        var sendBuffer: Int?
    }

    /// Base URL for origin-form request targets (`https://host:port`) inside a tunnel; nil on
    /// the plain listener, where `--upstream` or the absolute target says where to go.
    var origin: String?
    /// Set inside a tunnel: the connection is already open.
    var inherited: Inherited?

    /// Whether the client's bytes are TLS records (body delivery is mapped through them): only
    /// intercepted tunnels have an origin of their own.
    var tls: Bool { origin != nil }

    /// The plain listener.
    static let plain = ClientSession(origin: nil, inherited: nil)
}
