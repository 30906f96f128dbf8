import RangeTapCore

/// Why a probe could not run at all (as opposed to a server that answered badly, which is a
/// failed ``ProbeCheck``). The CLI exits with status 2 on these.
public struct ProbeError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case badURL(String)
        case badHeader(String)
        case badTimeout(String)
        case badReferenceLimit(Int64)
        case unreachable(url: String, message: String)
        case httpError(url: String, statusLine: String)
        case emptyResource(url: String)
        case curlSetup(String)
        case badCAFile(String)
        case noHTTP2(url: String, answeredOver: String?, message: String?)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The URL is not an absolute `http://` or `https://` URL.
    public static func badURL(_ url: String) -> Self { .init(.badURL(url)) }
    /// A `--header` line is not `Name: value`.
    public static func badHeader(_ line: String) -> Self { .init(.badHeader(line)) }
    /// The timeout (as written) is not a positive number of seconds.
    public static func badTimeout(_ text: String) -> Self { .init(.badTimeout(text)) }
    /// The reference read limit is too small to compare anything.
    public static func badReferenceLimit(_ bytes: Int64) -> Self { .init(.badReferenceLimit(bytes)) }
    /// No response head came back: refused, DNS, TLS, timeout, reset.
    public static func unreachable(url: String, message: String) -> Self {
        .init(.unreachable(url: url, message: message))
    }
    /// The URL answers with an error status, so there is no resource to probe.
    public static func httpError(url: String, statusLine: String) -> Self {
        .init(.httpError(url: url, statusLine: statusLine))
    }
    /// The resource is empty: no range of it can be satisfied.
    public static func emptyResource(url: String) -> Self { .init(.emptyResource(url: url)) }
    /// The `--cacert` file cannot be read.
    public static func badCAFile(_ path: String) -> Self { .init(.badCAFile(path)) }
    /// `--http2` was asked, but the server did not speak HTTP/2: it answered over
    /// `answeredOver` (`"1.1"`, by ALPN over TLS), or, for h2c with prior knowledge, the
    /// exchange failed with libcurl's `message`.
    public static func noHTTP2(url: String, answeredOver: String?, message: String? = nil) -> Self {
        .init(.noHTTP2(url: url, answeredOver: answeredOver, message: message))
    }
    /// libcurl could not be set up.
    public static func curlSetup(_ message: String) -> Self { .init(.curlSetup(message)) }

    /// Whether the error is about the arguments rather than the server.
    public var isUsageError: Bool {
        switch code {
        case .badURL, .badHeader, .badTimeout, .badReferenceLimit, .badCAFile: true
        default: false
        }
    }

    public var description: String {
        switch code {
        case .badURL(let url):
            "\(url) is not an absolute http:// or https:// URL; pass the URL of a media file, such as http://127.0.0.1:8080/movie.mp4"
        case .badHeader(let line):
            "--header \(line): expected 'Name: value' with a token name and no line breaks, such as --header 'Authorization: Bearer TOKEN'"
        case .badTimeout(let s):
            "--timeout \(s): expected a number of seconds above 0 and at most 3600, such as --timeout 10"
        case .badReferenceLimit(let n):
            "reference limit \(n): read at least 65536 bytes of the plain GET"
        case .unreachable(let url, let message):
            "cannot reach \(url): \(message); check that the server runs, the URL is right, and pass --insecure for a self-signed https test server"
        case .httpError(let url, let statusLine):
            "\(url) answered \"\(statusLine)\" to a plain request; probe the URL of a file the server serves with 200 (add --header for credentials if it needs them)"
        case .emptyResource(let url):
            "\(url) is empty (0 bytes): no range of it can be satisfied; probe a file of at least a few bytes"
        case .curlSetup(let message):
            "libcurl could not be set up: \(message)"
        case .badCAFile(let path):
            "--cacert \(path): the file cannot be read; pass a PEM file of CA certificates, such as the CA that signed the test server's certificate"
        case .noHTTP2(let url, let version?, _) where HTTPScheme(url: url) == .https:
            "\(url) answered over HTTP/\(version): the server does not offer h2 by ALPN, so --http2 cannot run its checks over HTTP/2; enable HTTP/2 on it (nginx 1.22: listen 443 ssl http2;) or probe without --http2 for its HTTP/\(version) behaviour"
        case .noHTTP2(let url, let version, let message):
            "\(url) did not speak HTTP/2 with prior knowledge (h2c)\(version.map { ": it answered over HTTP/\($0)" } ?? "")\(message.map { ": \($0)" } ?? ""); most servers offer HTTP/2 only over TLS: probe the https:// URL with --http2, or probe without --http2"
        }
    }
}
