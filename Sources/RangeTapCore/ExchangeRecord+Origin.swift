extension ExchangeRecord {
    /// The origin the exchange was fetched from, `scheme://host[:port]` of ``url`` (userinfo
    /// left out); nil when no absolute URL was fetched.
    public var origin: String? {
        guard let url, let schemeEnd = url.range(of: "://") else { return nil }
        let rest: Substring = url[schemeEnd.upperBound...]
        var authority: Substring = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard !authority.isEmpty else { return nil }
        return String(url[..<schemeEnd.upperBound]) + String(authority)
    }
}
