/// The `CMCD` query parameter (CTA-5004 §2.1), which a player adds to every request with values
/// that change each time (`bl`, `mtp`): it says what the player believes, not which resource it
/// asks for.
public enum CMCDQuery {
    /// Whether a query parameter (`name=value`, as written) is CMCD's.
    static func isCMCD(_ parameter: Substring) -> Bool { parameter == "CMCD" || parameter.hasPrefix("CMCD=") }

    /// `url` (absolute or origin-form) without its `CMCD` parameter, so that the requests of one
    /// resource have one name; unchanged when it has none.
    public static func removed(from url: String) -> String {
        let parts = URLParts(url)
        guard let query = parts.query else { return url }
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false)
        guard parameters.contains(where: isCMCD) else { return url }
        let kept = parameters.filter { !isCMCD($0) }
        let prefix = parts.scheme.map { "\($0)://\(parts.authorityText ?? "")" } ?? ""
        let fragment = parts.fragment.map { "#" + $0 } ?? ""
        return prefix + parts.path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + fragment
    }
}
