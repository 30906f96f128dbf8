extension ConnectionCloseEvent {
    /// Who closed a client connection, as the `by` of a `conn.close` event.
    ///
    /// An enum rather than a string so that a switch over it is checked by the compiler. A
    /// value this build does not know (written by an older or newer rangetap) decodes as
    /// ``other(_:)`` and is written back unchanged, so such a capture stays readable.
    /// ``init(rawValue:)`` maps every known string to its case, and equality and hashing go
    /// by ``rawValue``, so `.other("client")` equals ``client``.
    public enum Closer: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
        /// The client closed or reset the connection.
        case client
        /// rangetap closed it: `Connection: close`, an error, or shutdown.
        case proxy
        /// A value this build does not know, kept as written.
        case other(String)

        /// Every value this build writes.
        public static let known: [Closer] = [.client, .proxy]

        /// The value for the string in a capture; ``other(_:)`` when this build does not know it.
        public init(rawValue: String) {
            self = Self.known.first { $0.rawValue == rawValue } ?? .other(rawValue)
        }

        /// The string written in a capture.
        public var rawValue: String {
            switch self {
            case .client: "client"
            case .proxy: "proxy"
            case .other(let raw): raw
            }
        }

        /// The string written in a capture.
        public var description: String { rawValue }

        /// Compares the written strings (so `.other` never differs from the case it spells).
        public static func == (a: Closer, b: Closer) -> Bool { a.rawValue == b.rawValue }

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
