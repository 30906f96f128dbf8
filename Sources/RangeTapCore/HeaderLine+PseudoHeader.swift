extension HeaderLine {
    /// An HTTP/2 pseudo-header field as the capture writes it (`:path: /a.mp4`): the name with its
    /// leading colon (`:path`) and the value; nil for any other line. Such lines come first in
    /// the head of a request received as an HTTP/2 stream (RFC 9113 §8.3); ``name`` is nil for them.
    public var pseudoHeader: (name: Substring, value: Substring)? {
        let c = content.unicodeScalars
        guard c.first == ":" else { return nil }
        let afterLead = c.index(after: c.startIndex)
        guard let colon = c[afterLead...].firstIndex(of: ":") else { return nil }
        let n = c[afterLead..<colon]
        guard !n.isEmpty, n.allSatisfy(Self.isTokenScalar) else { return nil }
        return (Substring(c[..<colon]), Substring(c[c.index(after: colon)...]).trimmingHTTPWhitespace())
    }
}
