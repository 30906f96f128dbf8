extension ErrorEvent {
    /// What went wrong, as the `kind` of an `error` event (the list is in docs/capture-format.md).
    ///
    /// An enum rather than a string so that a switch over kinds is checked by the compiler
    /// when a kind is added. A kind this build does not know (written by an older or newer
    /// rangetap) decodes as ``other(_:)`` and is written back unchanged, so such a capture
    /// stays readable. ``init(rawValue:)`` maps every known string to its case, and equality
    /// and hashing go by ``rawValue``, so `.other("upstream")` equals ``upstream``.
    public enum Kind: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
        /// A malformed request, answered 400 (no exchange).
        case badRequest
        /// rangetap would not forward the request (`status` says what it answered).
        case refused
        /// libcurl failed talking to the upstream.
        case upstream
        /// The upstream sent nothing for `--upstream-idle-timeout`.
        case upstreamTimeout
        /// rangetap was stopped mid-response.
        case interrupted
        /// The client closed before its request was whole, or a client socket error.
        case client
        /// A request head did not arrive whole within `--head-timeout` (answered 408).
        case headTimeout
        /// A request body received nothing for `--body-timeout` (answered 408, or the stream reset).
        case bodyTimeout
        /// An intercepted tunnel could not be set up.
        case tls
        /// A `--fault` rule cut the exchange.
        case fault
        /// A kind this build does not know, kept as written.
        case other(String)

        /// Every kind this build writes.
        public static let known: [Kind] = [
            .badRequest, .refused, .upstream, .upstreamTimeout, .interrupted, .client, .headTimeout, .bodyTimeout, .tls,
            .fault,
        ]

        /// The kind for the string in a capture; ``other(_:)`` when this build does not know it.
        public init(rawValue: String) {
            self = Self.known.first { $0.rawValue == rawValue } ?? .other(rawValue)
        }

        /// The string written in a capture.
        public var rawValue: String {
            switch self {
            case .badRequest: "bad-request"
            case .refused: "refused"
            case .upstream: "upstream"
            case .upstreamTimeout: "upstream-timeout"
            case .interrupted: "interrupted"
            case .client: "client"
            case .headTimeout: "head-timeout"
            case .bodyTimeout: "body-timeout"
            case .tls: "tls"
            case .fault: "fault"
            case .other(let raw): raw
            }
        }

        /// The string written in a capture.
        public var description: String { rawValue }

        /// Compares the written strings (so `.other` never differs from the case it spells).
        public static func == (a: Kind, b: Kind) -> Bool { a.rawValue == b.rawValue }

        /// Hashes the written string.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// Decodes the string; an unknown one becomes ``other(_:)``, never an error.
        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }

        /// Encodes the string.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(rawValue)
        }
    }
}
