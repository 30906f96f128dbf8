import RangeTapCore

/// The secret every request to the web view shows (`?token=`): 128 random bits as 32 hex digits,
/// new for each run, printed in the URL at start.
public enum WebToken {
    /// A new token.
    public static func generate() -> String { RandomToken.hex128() }

    /// Whether `given` is `token`, compared in time independent of where they differ.
    static func matches(_ given: Substring?, _ token: String) -> Bool {
        given.map { ConstantTime.equal($0, token) } ?? false
    }

}
