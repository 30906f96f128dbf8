extension ExchangeRecord {
    /// The origin the exchange was fetched from, `scheme://host[:port]` of ``url`` (userinfo
    /// left out); nil when no absolute URL was fetched.
    public var origin: String? {
        guard let url else { return nil }
        let parts = URLParts(url)
        guard let scheme = parts.scheme, let authority = parts.authority, !authority.hostAndPort.isEmpty else {
            return nil
        }
        return scheme + "://" + authority.hostAndPort
    }
}
