import Foundation
import RangeTapCore
import RangeTapCurl

/// What to probe and how.
public struct ProbeOptions: Sendable {
    /// The resource's absolute `http://` or `https://` URL.
    public var url: String
    /// Extra header lines `Name: value` sent with every request (a user's line replaces the
    /// probe's line of the same name).
    public var headers: [String]
    /// Skip TLS certificate verification.
    public var insecure: Bool
    /// Limit on each request (connect and transfer), in seconds.
    public var timeoutSeconds: Double
    /// Most bytes of the plain GET read as the reference that range bodies are compared with;
    /// slices past it are compared with the open-ended range instead.
    public var referenceLimit: Int64
    /// The User-Agent line.
    public var userAgent: String
    /// Run the Range checks over HTTP/2 (`h2` by ALPN for https, h2c with prior knowledge for
    /// http) and the HTTP/2 connection checks in place of the HTTP/1.x-only ones.
    public var http2: Bool
    /// A PEM file of CA certificates to trust for https, beside the system's (curl's `--cacert`).
    public var caFile: String?
    /// An HTTP proxy every request goes through (`http://HOST:PORT`), or nil to connect directly.
    public var proxy: String?

    /// Options for probing `url`.
    public init(
        url: String, headers: [String] = [], insecure: Bool = false, timeoutSeconds: Double = 10,
        referenceLimit: Int64 = 8 << 20, userAgent: String = "rangetap-probe/0.1", http2: Bool = false,
        caFile: String? = nil, proxy: String? = nil
    ) {
        self.proxy = proxy
        self.url = url
        self.headers = headers
        self.insecure = insecure
        self.timeoutSeconds = timeoutSeconds
        self.referenceLimit = referenceLimit
        self.userAgent = userAgent
        self.http2 = http2
        self.caFile = caFile
    }

    /// Whether the URL is `https://`.
    var isHTTPS: Bool { HTTPScheme(url: url) == .https }

    /// The protocol the checks run over, as its ALPN identifier: `http/1.1`, `h2` (HTTP/2 over
    /// TLS) or `h2c` (HTTP/2 over cleartext TCP, with prior knowledge).
    public var protocolName: String { http2 ? (isHTTPS ? "h2" : "h2c") : "http/1.1" }

    /// Whether every h2c request must go on a new connection: libcurl before 8.0.0 fails a
    /// second request on an h2c connection (``CurlVersion/failsToReuseH2C``).
    var h2cNeedsFreshConnections: Bool { http2 && !isHTTPS && CurlVersion.failsToReuseH2C }

    /// The timeout in whole milliseconds (at least 1).
    var timeoutMs: Int { max(1, Int((timeoutSeconds * 1000).rounded())) }

    /// Throws when an option makes no sense, with what to pass instead.
    public func validate() throws(ProbeError) {
        guard HTTPScheme.isHTTP(url), url.count > 8, !url.contains(" ") else {
            throw .badURL(url)
        }
        for line in headers {
            guard let colon = line.firstIndex(of: ":") else { throw .badHeader(line) }
            let name = line[..<colon]
            let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
            guard !name.isEmpty, name.allSatisfy({ tchar.contains($0) }), !line.contains("\r"), !line.contains("\n")
            else {
                throw .badHeader(line)
            }
        }
        guard timeoutSeconds.isFinite, timeoutSeconds > 0, timeoutSeconds <= 3600 else {
            throw .badTimeout(
                timeoutSeconds == timeoutSeconds.rounded() && timeoutSeconds.isFinite
                    ? String(Int(timeoutSeconds)) : String(timeoutSeconds))
        }
        guard referenceLimit >= 64 * 1024 else { throw .badReferenceLimit(referenceLimit) }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .badCAFile(caFile)
        }
    }
}
