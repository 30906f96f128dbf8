import CLibssl

/// A TLS configuration of the system's libssl (OpenSSL 3): the server side rangetap presents
/// (intercepted tunnels, `serve --tls`) or the client side of its origin probe. Sessions are
/// made from it by ``TLSHandler``; it may be shared by connections on any event loop.
///
/// Why libssl rather than swift-nio-ssl: the BoringSSL copy inside swift-nio-ssl took a third of
/// a clean build (283 C++ files, about 360 CPU seconds on the 2-core CI machine), and the system's
/// libcrypto was linked already for the CA. The system's copy also takes Debian's security
/// updates without a new rangetap (docs/https.md, "TLS library").
public final class TLSContext: @unchecked Sendable {
    // @unchecked: an SSL_CTX is safe to share across threads once set up, and this object sets
    // its callbacks only before it is handed out (in the static constructors below).

    /// The `clibssl_context`.
    let pointer: OpaquePointer

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { clibssl_context_free(pointer) }

    /// A server context presenting the DER certificate `leaf`, then `chain` (the CA), for the
    /// PEM private key `keyPEM`; TLS 1.2 or later; offering `applicationProtocols` by ALPN in the
    /// server's order of preference.
    ///
    /// With `chooseByServerName`, a client's SNI is handed to it during the handshake; the
    /// context it returns (nil: this one) presents its certificate instead, and a throw fails the
    /// handshake. With `keyLog`, every session's secrets are appended to it.
    public static func server(
        leaf: [UInt8], chain: [UInt8]?, keyPEM: String, applicationProtocols: [String],
        keyLog: KeyLogFile? = nil, chooseByServerName: (@Sendable (String) throws -> TLSContext?)? = nil
    ) throws(TLSError) -> TLSContext {
        let alpn = wireFormat(applicationProtocols)
        let made: OpaquePointer? = leaf.withUnsafeBufferPointer { leafBytes in
            (chain ?? []).withUnsafeBufferPointer { chainBytes in
                alpn.withUnsafeBufferPointer { alpnBytes in
                    var key = keyPEM
                    return key.withUTF8 { keyBytes in
                        keyBytes.withMemoryRebound(to: CChar.self) { keyChars in
                            clibssl_server_context(
                                leafBytes.baseAddress!, leafBytes.count, chain == nil ? nil : chainBytes.baseAddress,
                                chainBytes.count, keyChars.baseAddress!, keyChars.count, alpnBytes.baseAddress,
                                alpnBytes.count)
                        }
                    }
                }
            }
        }
        guard let made else {
            throw .minting(host: "*", "libssl refused the certificate or key: \(errorReasons().joined(separator: " "))")
        }
        let context = TLSContext(pointer: made)
        if let keyLog { context.setKeyLog(keyLog) }
        if let chooseByServerName {
            let chooser = ServerNameChooser(chooseByServerName)
            clibssl_context_set_server_name(
                made,
                { argument, name, failed in
                    let chooser = Unmanaged<ServerNameChooser>.fromOpaque(argument).takeUnretainedValue()
                    do {
                        guard let other = try chooser.choose(String(cString: name)) else { return nil }
                        // The callback hands a reference over with the context it returns.
                        clibssl_context_retain(other.pointer)
                        return other.pointer
                    } catch {
                        failed.pointee = 1
                        return nil
                    }
                }, Unmanaged.passRetained(chooser).toOpaque(),
                { Unmanaged<AnyObject>.fromOpaque($0).release() })
        }
        return context
    }

    /// A client context offering `applicationProtocols` by ALPN. With `verify`, the peer's chain
    /// must verify against the system's CAs and those in `extraCAFile` (PEM), and its certificate
    /// must name the host the session was made for; without, nothing is checked.
    /// `maximumVersion` (0x0303 TLS 1.2, 0x0304 TLS 1.3) caps the version, when given.
    public static func client(
        verify: Bool, extraCAFile: String? = nil, applicationProtocols: [String] = [], maximumVersion: UInt16? = nil
    ) throws(TLSError) -> TLSContext {
        let alpn = wireFormat(applicationProtocols)
        let made = alpn.withUnsafeBufferPointer { alpnBytes in
            clibssl_client_context(
                verify ? 1 : 0, extraCAFile, alpnBytes.baseAddress, alpnBytes.count, Int32(maximumVersion ?? 0))
        }
        guard let made else {
            let file = extraCAFile.map { " (is \($0) a readable PEM file?)" } ?? ""
            throw .minting(
                host: "*", "libssl cannot make a client context\(file): \(errorReasons().joined(separator: " "))")
        }
        return TLSContext(pointer: made)
    }

    private func setKeyLog(_ keyLog: KeyLogFile) {
        clibssl_context_set_key_log(
            pointer,
            { argument, line in
                Unmanaged<KeyLogFile>.fromOpaque(argument).takeUnretainedValue().append(line: line)
            }, Unmanaged.passRetained(keyLog).toOpaque(), { Unmanaged<AnyObject>.fromOpaque($0).release() })
    }

    /// ALPN's wire format: each protocol's length in one byte, then its bytes.
    static func wireFormat(_ protocols: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for name in protocols where !name.isEmpty && name.utf8.count < 256 {
            bytes.append(UInt8(name.utf8.count))
            bytes.append(contentsOf: name.utf8)
        }
        return bytes
    }

    /// The reason codes libssl queued on this thread (clearing them).
    static func errorReasons() -> [String] {
        var text = [CChar](repeating: 0, count: 512)
        clibssl_error_reasons(&text, text.count)
        let joined = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return joined.split(separator: " ").map(String.init)
    }
}

/// The SNI callback's argument: a box the C side holds a reference to.
private final class ServerNameChooser: Sendable {
    let choose: @Sendable (String) throws -> TLSContext?

    init(_ choose: @escaping @Sendable (String) throws -> TLSContext?) {
        self.choose = choose
    }
}
