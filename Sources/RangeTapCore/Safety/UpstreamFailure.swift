/// An upstream transfer's failure as libcurl reports it, in words a user can act on.
public enum UpstreamFailure {
    /// libcurl's limit on one response header line.
    public static let headerLineLimit = 100 * 1024
    /// libcurl's limit on a whole response head (7.88 and later).
    public static let headLimit = 300 * 1024

    /// A message for libcurl's `code` and `message`, ending in `(curl error N)`.
    ///
    /// `headReceived`: whether the final response head had arrived when it failed. libcurl 7.x
    /// reports a header line over 100 KB as "Out of memory" (27); newer versions say "Too
    /// large" (100) or "Too large response headers" — all are shown as a head too large.
    public static func describe(curlCode: Int, message: String, headReceived: Bool) -> String {
        let lower = message.lowercased()
        let headTooLarge =
            curlCode == 100
            || (curlCode == 27 && !headReceived)
            || (lower.contains("header") && (lower.contains("too large") || lower.contains("max is")))
        if headTooLarge {
            return
                "the upstream's response head is larger than libcurl accepts (\(headerLineLimit / 1024) KB per header line, \(headLimit / 1024) KB for the whole head), so rangetap cannot read or forward it; look at the origin's headers with curl -sv URL -o /dev/null (libcurl said: \(message)) (curl error \(curlCode))"
        }
        if curlCode == 60 || curlCode == 51 || curlCode == 83 {
            return
                "the upstream's TLS certificate failed verification: \(message). If the origin uses a private or self-signed CA, pass --upstream-cacert FILE (PEM) to trust it; --insecure skips verification altogether (curl error \(curlCode))"
        }
        if curlCode == 77 {
            return
                "the CA certificates for upstream verification cannot be read: \(message); check --upstream-cacert (curl error \(curlCode))"
        }
        if curlCode == 35 {
            return "the TLS handshake with the upstream failed: \(message) (curl error \(curlCode))"
        }
        return "\(message) (curl error \(curlCode))"
    }
}
