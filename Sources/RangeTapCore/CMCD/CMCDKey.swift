/// The keys CTA-5004 (CMCD version 1) defines: their value type, the header they belong in,
/// and what they mean.
public struct CMCDKey: Sendable, Hashable {
    /// What type a key's value has.
    public enum Kind: Sendable, Hashable {
        /// An integer.
        case integer
        /// A decimal (an integer is accepted).
        case decimal
        /// A quoted string of at most `maxLength` characters (nil: no limit).
        case string(maxLength: Int?)
        /// One of the listed tokens.
        case token([String])
        /// A key alone (true), or absent.
        case boolean
    }

    /// The key (`bl`).
    public var name: String
    /// Its value type.
    public var kind: Kind
    /// The header it belongs in.
    public var source: CMCDSource
    /// What it says, with its unit (`buffer length, ms`).
    public var meaning: String

    /// Every key of CMCD version 1, by name.
    public static let known: [String: CMCDKey] = Dictionary(
        uniqueKeysWithValues: [
            CMCDKey(name: "br", kind: .integer, source: .object, meaning: "encoded bitrate, kbit/s"),
            CMCDKey(name: "d", kind: .integer, source: .object, meaning: "object duration, ms"),
            CMCDKey(
                name: "ot", kind: .token(["m", "a", "v", "av", "i", "c", "tt", "k", "o"]), source: .object,
                meaning: "object type"),
            CMCDKey(name: "tb", kind: .integer, source: .object, meaning: "top bitrate, kbit/s"),
            CMCDKey(name: "bl", kind: .integer, source: .request, meaning: "buffer length, ms"),
            CMCDKey(name: "dl", kind: .integer, source: .request, meaning: "deadline, ms"),
            CMCDKey(name: "mtp", kind: .integer, source: .request, meaning: "measured throughput, kbit/s"),
            CMCDKey(name: "nor", kind: .string(maxLength: nil), source: .request, meaning: "next object request"),
            CMCDKey(name: "nrr", kind: .string(maxLength: nil), source: .request, meaning: "next range request"),
            CMCDKey(name: "su", kind: .boolean, source: .request, meaning: "startup"),
            CMCDKey(name: "cid", kind: .string(maxLength: 64), source: .session, meaning: "content id"),
            CMCDKey(name: "pr", kind: .decimal, source: .session, meaning: "playback rate"),
            CMCDKey(name: "sf", kind: .token(["d", "h", "s", "o"]), source: .session, meaning: "streaming format"),
            CMCDKey(name: "sid", kind: .string(maxLength: 64), source: .session, meaning: "session id"),
            CMCDKey(name: "st", kind: .token(["v", "l"]), source: .session, meaning: "stream type"),
            CMCDKey(name: "v", kind: .integer, source: .session, meaning: "CMCD version"),
            CMCDKey(name: "bs", kind: .boolean, source: .status, meaning: "buffer starvation"),
            CMCDKey(name: "rtp", kind: .integer, source: .status, meaning: "requested maximum throughput, kbit/s"),
        ].map { ($0.name, $0) })

    /// Whether `name` is a custom key: CTA-5004 §3.1 gives them a hyphenated prefix
    /// (`com.example-myKey`).
    public static func isCustom(_ name: String) -> Bool { name.contains("-") }
}
