/// What the first TLS handshake messages say in the clear: the client's SNI and ALPN offer,
/// and the server's chosen cipher suite and version. Read from the first record of each
/// direction, so the capture can name them without reaching into the TLS library.
public enum TLSHello {
    /// What a ClientHello offers.
    public struct Client: Sendable, Equatable {
        /// The server name (SNI), if sent.
        public var serverName: String?
        /// Application protocols offered (ALPN), in the client's order.
        public var applicationProtocols: [String]

        /// Creates one.
        public init(serverName: String?, applicationProtocols: [String]) {
            self.serverName = serverName
            self.applicationProtocols = applicationProtocols
        }
    }

    /// What a ServerHello chose.
    public struct Server: Sendable, Equatable {
        /// The cipher suite's code point.
        public var cipherSuite: UInt16
        /// The negotiated version's code point (`supported_versions` for TLS 1.3).
        public var version: UInt16

        /// Creates one.
        public init(cipherSuite: UInt16, version: UInt16) {
            self.cipherSuite = cipherSuite
            self.version = version
        }
    }

    /// The outcome of reading a first record.
    public enum Parse<T: Sendable & Equatable>: Sendable, Equatable {
        /// Not enough bytes yet.
        case needMore
        /// Read.
        case parsed(T)
        /// Not a TLS handshake record of the expected kind.
        case notTLS
    }

    /// Reads a ClientHello from the start of a client's byte stream.
    public static func client(_ bytes: [UInt8]) -> Parse<Client> {
        switch handshake(bytes, type: 1) {
        case .needMore: return .needMore
        case .notTLS: return .notTLS
        case .parsed(let body):
            var r = Reader(body)
            guard r.skip(2 + 32), let session = r.u8(), r.skip(Int(session)),
                let suites = r.u16(), r.skip(Int(suites)),
                let compression = r.u8(), r.skip(Int(compression))
            else { return .parsed(Client(serverName: nil, applicationProtocols: [])) }
            var result = Client(serverName: nil, applicationProtocols: [])
            for (type, data) in extensions(&r) {
                var e = Reader(data)
                if type == 0 {
                    // server_name: list length, then (type 0, length, name)
                    guard e.skip(2), e.u8() == 0, let n = e.u16(), let name = e.bytes(Int(n)) else { continue }
                    result.serverName = String(decoding: name, as: UTF8.self)
                } else if type == 16 {
                    guard e.skip(2) else { continue }
                    while let n = e.u8(), let p = e.bytes(Int(n)) {
                        result.applicationProtocols.append(String(decoding: p, as: UTF8.self))
                    }
                }
            }
            return .parsed(result)
        }
    }

    /// Reads a ServerHello from the start of a server's byte stream.
    public static func server(_ bytes: [UInt8]) -> Parse<Server> {
        switch handshake(bytes, type: 2) {
        case .needMore: return .needMore
        case .notTLS: return .notTLS
        case .parsed(let body):
            var r = Reader(body)
            guard let legacy = r.u16(), r.skip(32), let session = r.u8(), r.skip(Int(session)), let suite = r.u16(),
                r.skip(1)
            else { return .notTLS }
            var version = legacy
            for (type, data) in extensions(&r) where type == 43 {
                var e = Reader(data)
                if let v = e.u16() { version = v }
            }
            return .parsed(Server(cipherSuite: suite, version: version))
        }
    }

    /// IANA's name of a cipher suite (the common ones), else its code point in hex.
    public static func cipherName(_ code: UInt16) -> String {
        switch code {
        case 0x1301: "TLS_AES_128_GCM_SHA256"
        case 0x1302: "TLS_AES_256_GCM_SHA384"
        case 0x1303: "TLS_CHACHA20_POLY1305_SHA256"
        case 0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        case 0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
        case 0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
        case 0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
        case 0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"
        case 0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
        case 0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"
        case 0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"
        case 0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256"
        default: "0x" + String(code, radix: 16, uppercase: true)
        }
    }

    /// The name of a protocol version code point: `TLSv1.3`, `TLSv1.2`…
    public static func versionName(_ code: UInt16) -> String {
        switch code {
        case 0x0304: "TLSv1.3"
        case 0x0303: "TLSv1.2"
        case 0x0302: "TLSv1.1"
        case 0x0301: "TLSv1.0"
        case 0x0300: "SSLv3"
        default: "0x" + String(code, radix: 16, uppercase: true)
        }
    }

    /// The body of the first handshake message of `type` in the first record, which may be cut
    /// short by the record's end (what is there is returned).
    private static func handshake(_ bytes: [UInt8], type: UInt8) -> Parse<ArraySlice<UInt8>> {
        guard bytes.count >= 1 else { return .needMore }
        guard bytes[0] == 22 else { return .notTLS }
        guard bytes.count >= 5 else { return .needMore }
        guard bytes[1] == 3 else { return .notTLS }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        guard length >= 4 else { return .notTLS }
        guard bytes.count >= 5 + length else { return .needMore }
        let record = bytes[5..<(5 + length)]
        guard record[record.startIndex] == type else { return .notTLS }
        let declared =
            Int(record[record.startIndex + 1]) << 16 | Int(record[record.startIndex + 2]) << 8
            | Int(record[record.startIndex + 3])
        let start = record.startIndex + 4
        return .parsed(record[start..<min(record.endIndex, start + declared)])
    }

    private static func extensions(_ r: inout Reader) -> [(UInt16, ArraySlice<UInt8>)] {
        guard let total = r.u16(), let block = r.bytes(Int(total)) else { return [] }
        var e = Reader(block)
        var out: [(UInt16, ArraySlice<UInt8>)] = []
        while let type = e.u16(), let n = e.u16(), let data = e.bytes(Int(n)) {
            out.append((type, data))
        }
        return out
    }

    /// Bounds-checked big-endian reads.
    private struct Reader {
        var data: ArraySlice<UInt8>
        init(_ data: ArraySlice<UInt8>) { self.data = data }
        mutating func skip(_ n: Int) -> Bool { bytes(n) != nil }
        mutating func u8() -> UInt8? { bytes(1).map { $0[$0.startIndex] } }
        mutating func u16() -> UInt16? {
            bytes(2).map { UInt16($0[$0.startIndex]) << 8 | UInt16($0[$0.startIndex + 1]) }
        }
        mutating func bytes(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, data.count >= n else { return nil }
            let out = data.prefix(n)
            data = data.dropFirst(n)
            return out
        }
    }
}
