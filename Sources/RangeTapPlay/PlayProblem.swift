/// Something a server did that a player could not rely on.
public struct PlayProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What kind of misbehaviour.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A `Range` request answered `200` with the whole representation.
        case ignoredRange
        /// A `206` whose `Content-Range` is missing, unparsable or not the range asked for.
        case wrongContentRange
        /// A body whose length differs from what `Content-Range` announced.
        case wrongBodyLength
        /// No usable total length (a player cannot plan ranges without it).
        case unknownLength
        /// A status a player cannot use (`404`, `416` for a satisfiable range, `5xx`, …).
        case badStatus
        /// The transfer failed after the response began.
        case transferFailed
    }

    /// The step (1-based) it was seen at.
    public var step: Int
    /// What kind.
    public var kind: Kind
    /// A sentence saying what happened and what it means for a player.
    public var message: String

    /// Creates a problem.
    public init(step: Int, kind: Kind, message: String) {
        self.step = step
        self.kind = kind
        self.message = message
    }

    /// `step N: message`.
    public var description: String { "step \(step): \(message)" }
}
