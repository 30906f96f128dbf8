/// Why a scripted play session could not run at all (as opposed to a server that answered
/// badly, which is a ``PlayProblem``).
public struct PlayError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case badURL(String)
        case badReadBytes(Int64)
        case unreachable(url: String, proxy: String?, curlCode: Int, message: String)
        case noResponse(url: String, seconds: Int)
        case curlSetup(String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The URL is not an absolute `http://` or `https://` URL.
    public static func badURL(_ url: String) -> Self { .init(.badURL(url)) }
    /// The read size is not positive.
    public static func badReadBytes(_ n: Int64) -> Self { .init(.badReadBytes(n)) }
    /// libcurl could not get a response head: no connection, DNS, refused, reset before the head.
    public static func unreachable(url: String, proxy: String?, curlCode: Int, message: String) -> Self {
        .init(.unreachable(url: url, proxy: proxy, curlCode: curlCode, message: message))
    }
    /// The server accepted the connection but sent no response head in time.
    public static func noResponse(url: String, seconds: Int) -> Self { .init(.noResponse(url: url, seconds: seconds)) }
    /// libcurl could not be set up.
    public static func curlSetup(_ message: String) -> Self { .init(.curlSetup(message)) }

    /// libcurl's error code when the server (or proxy) could not be reached.
    public var curlCode: Int? {
        if case .unreachable(_, _, let c, _) = code { return c }
        return nil
    }

    /// What went wrong and what to do about it.
    public var description: String {
        switch code {
        case .badURL(let url):
            return
                "\(url) is not an absolute http:// or https:// URL; pass the media URL, such as http://127.0.0.1:8081/movie.mp4"
        case .badReadBytes(let n):
            return "read size \(n) (--chunk-bytes): the number of bytes to read before cancelling must be at least 1"
        case .unreachable(let url, let proxy, let curlCode, let message):
            let via = proxy.map { " through the proxy \($0)" } ?? ""
            // libcurl's TLS codes: a certificate not trusted, or a handshake that failed.
            let tls: Set<Int> = [35, 51, 58, 59, 60, 77, 83, 90, 91]
            let check =
                tls.contains(curlCode)
                ? "the TLS certificate was not accepted: pass --cacert FILE with the CA that signed it (through an intercepting rangetap record, its CA: rangetap ca info says where), or -k to skip verification"
                : proxy == nil
                    ? "check that the server runs and the URL is right"
                    : "check that the proxy (rangetap record) runs and the URL is right"
            return "cannot fetch \(url)\(via): \(message) (libcurl error \(curlCode)); \(check)"
        case .noResponse(let url, let seconds):
            return "\(url): the server accepted the connection but sent no response head within \(seconds) s"
        case .curlSetup(let message):
            return message
        }
    }
}
