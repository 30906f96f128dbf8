/// A plain statement about what a kind of client will experience with this server, derived
/// from the checks, such as "an AVPlayer-style client can stream and seek".
public struct PlayerVerdict: Sendable, Codable, Equatable {
    /// Stable identifier, such as `stream-and-seek`.
    public var id: String
    /// Whether the statement is good news for clients.
    public var ok: Bool
    /// The statement.
    public var text: String
    /// The check ids it is based on.
    public var basedOn: [String]

    /// Creates a verdict.
    public init(id: String, ok: Bool, text: String, basedOn: [String]) {
        self.id = id
        self.ok = ok
        self.text = text
        self.basedOn = basedOn
    }
}
