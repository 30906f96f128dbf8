extension ProbeCheck {
    /// A check's `id` as a report carries it: a check this build runs, or one it does not know.
    ///
    /// ``ProbeCheckID`` stays the closed list of the checks this build runs, each with its
    /// area, title and RFC section, so a switch over it is checked by the compiler. A report
    /// written by an older or newer rangetap may name a check that list lacks: it decodes as
    /// ``other(_:)`` and is written back unchanged, so such a report stays readable.
    /// ``init(rawValue:)`` maps every known string to ``check(_:)``, and equality and hashing
    /// go by ``rawValue``, so `.other("range-probe")` equals `.check(.rangeProbe)`.
    public enum ID: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
        /// A check this build runs.
        case check(ProbeCheckID)
        /// An id this build does not know, kept as written.
        case other(String)

        /// The id for the string in a report; ``other(_:)`` when this build does not know it.
        public init(rawValue: String) {
            self = ProbeCheckID(rawValue: rawValue).map(ID.check) ?? .other(rawValue)
        }

        /// The stable id written in JSON, such as `range-probe`.
        public var rawValue: String {
            switch self {
            case .check(let id): id.rawValue
            case .other(let raw): raw
            }
        }

        /// The check this build runs under this id, if it runs one.
        public var known: ProbeCheckID? {
            if case .check(let id) = self { id } else { nil }
        }

        /// The stable id written in JSON.
        public var description: String { rawValue }

        /// Compares the written strings (so `.other` never differs from the check it names).
        public static func == (a: ID, b: ID) -> Bool { a.rawValue == b.rawValue }

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
