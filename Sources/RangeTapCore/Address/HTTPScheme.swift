/// The two schemes rangetap fetches and serves, read off the front of an absolute URL.
public enum HTTPScheme: String, Sendable, Hashable, CaseIterable {
    /// `http://`
    case http
    /// `https://`
    case https

    /// The scheme `url` starts with, `http://` or `https://` in any letter case; nil for any
    /// other scheme, an origin-form target or text that is no URL.
    @inlinable
    public init?(url: some StringProtocol) {
        // Bytes: every request's target comes here, and the schemes are ASCII.
        let head = url.utf8.prefix(8)
        if head.count >= 7, HeaderByte.equalsIgnoringASCIICase(head.prefix(7), "http://".utf8) {
            self = .http
        } else if head.count == 8, HeaderByte.equalsIgnoringASCIICase(head, "https://".utf8) {
            self = .https
        } else {
            return nil
        }
    }

    /// Whether `url` is an absolute `http://` or `https://` URL (any letter case).
    public static func isHTTP(_ url: some StringProtocol) -> Bool { HTTPScheme(url: url) != nil }

    /// The port a URL of this scheme means when it writes none: 80 or 443.
    public var defaultPort: Int { self == .https ? 443 : 80 }
}
