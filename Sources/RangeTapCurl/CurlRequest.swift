/// What one upstream transfer asks for.
public struct CurlRequest: Sendable {
    /// Absolute http or https URL.
    public var url: String
    /// Method, sent as given.
    public var method: String
    /// Header lines `Name: value` to send, in order (`Name:` with no value removes a libcurl default).
    public var headers: [String]
    /// Whether each character of ``headers`` stands for one byte (ISO-8859-1, as an HTTP/1.1
    /// head's bytes are read), so bytes over 0x7F go out as they came; false sends the lines
    /// as UTF-8.
    public var headersAreLatin1 = false
    /// Request body, if any, whole.
    public var body: [UInt8]?
    /// A request body libcurl reads as it sends (in place of ``body``): its bytes as they come
    /// from the client, the transfer's sending paused while there are none yet.
    public var bodySource: (any CurlBodySource)?
    /// The length of ``bodySource``'s body when known (sent as `Content-Length`); nil sends it
    /// chunked over HTTP/1.1 (over HTTP/2 the stream's end ends it).
    public var bodyLength: Int64?
    /// Whether the request has a body (whole or streamed).
    public var hasBody: Bool { body != nil || bodySource != nil }
    /// Skip TLS certificate verification (for test servers).
    public var insecure: Bool
    /// Connect timeout in milliseconds.
    public var connectTimeoutMs: Int
    /// Receive buffer size (`CURLOPT_BUFFERSIZE`): the largest chunk one read delivers.
    public var bufferSize: Int
    /// Ask for HTTP/1.0 instead of HTTP/1.1.
    public var http10: Bool
    /// Ask for HTTP/2: negotiated by ALPN over https (HTTP/1.1 when the origin does not offer
    /// it, and for http:// URLs), or, with ``CurlHTTP2/priorKnowledge``, spoken straight away
    /// (h2c). A transfer asking for HTTP/2 waits for a connection it can multiplex on
    /// (`CURLOPT_PIPEWAIT`) rather than opening another. `nil`: HTTP/1.1 (or 1.0, see ``http10``).
    public var http2: CurlHTTP2?
    /// HTTP proxy to send the request through (`http://HOST:PORT`, as `CURLOPT_PROXY` takes it);
    /// `nil` connects directly and ignores the `http_proxy`/`all_proxy` environment variables.
    public var proxy: String?
    /// Limit on the whole transfer in milliseconds (`CURLOPT_TIMEOUT_MS`); 0, the default, sets none.
    public var timeoutMs: Int
    /// End the transfer when nothing arrives for this many milliseconds while it is not paused;
    /// 0, the default, sets none. It then fails with ``CurlMulti/idleTimeoutCode``.
    public var idleTimeoutMs: Int = 0
    /// A PEM file of CA certificates trusted for https, in addition to the system's store
    /// (`CURLOPT_CAINFO`, with `CURLOPT_CAPATH` kept on the system's directory).
    public var caFile: String?
    /// Open a new connection for this transfer and close it afterwards (`CURLOPT_FRESH_CONNECT`
    /// and `CURLOPT_FORBID_REUSE`), as for a libcurl that cannot reuse an h2c connection
    /// (``CurlVersion/failsToReuseH2C``).
    public var freshConnection = false
    /// When the transfer ends early (aborted, cancelled, or timed out by rangetap), forbid its
    /// connection's reuse, so libcurl closes it unless another transfer uses it: an HTTP/2
    /// origin then learns of the end at once (libcurl 7.88 sends the stream's RST_STREAM only
    /// with the connection's next frame, curl issue #17611). Off for a client that wants the
    /// connection kept, such as the probe that checks reuse after a reset.
    public var closeConnectionWhenEndedEarly = true

    /// Creates a request.
    public init(
        url: String, method: String = "GET", headers: [String] = [], body: [UInt8]? = nil, insecure: Bool = false,
        connectTimeoutMs: Int = 10_000, bufferSize: Int = 256 * 1024, http10: Bool = false, proxy: String? = nil,
        timeoutMs: Int = 0
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.insecure = insecure
        self.connectTimeoutMs = connectTimeoutMs
        self.bufferSize = bufferSize
        self.http10 = http10
        self.proxy = proxy
        self.timeoutMs = timeoutMs
    }
}

/// How a transfer asks for HTTP/2.
public enum CurlHTTP2: Sendable, Equatable {
    /// Offer `h2` by ALPN on https (`CURL_HTTP_VERSION_2TLS`); HTTP/1.1 on http.
    case overTLS
    /// Speak HTTP/2 from the first byte, on http too (`CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`).
    case priorKnowledge
}

/// What the body callback tells libcurl to do with the bytes it was handed.
public enum CurlWriteDecision: Sendable {
    /// The bytes were taken.
    case consumed
    /// Not taken: pause the transfer; libcurl hands the same bytes again after ``CurlMulti/unpause(_:)``.
    case pause
    /// Abort the transfer (it finishes with `CURLE_WRITE_ERROR`).
    case abort
}

/// How a transfer ended.
public enum CurlResult: Sendable, Equatable {
    /// The response ended as framed.
    case ok
    /// libcurl failed: its CURLcode and error text.
    case failed(code: Int, message: String)
    /// Cancelled through ``CurlMulti/cancel(_:)``.
    case cancelled
}

/// Receives a transfer's data. Every method is called on the ``CurlMulti`` thread and must not block.
public protocol CurlTransferDelegate: AnyObject, Sendable {
    /// One raw header line, terminator included, exactly as received (status lines and the
    /// blank line too, for every 1xx response and for trailers).
    func transfer(_ transfer: CurlTransfer, didReceiveHeaderLine line: UnsafeRawBufferPointer)
    /// Body bytes as read from the socket (after chunked decoding), at most 16 KiB a call.
    /// While ``CurlTransfer/deliveringHeld`` is true the bytes are ones libcurl kept during a
    /// pause: returning `.pause` then makes libcurl copy all that is left of them again.
    func transfer(_ transfer: CurlTransfer, didReceiveBody bytes: UnsafeRawBufferPointer) -> CurlWriteDecision
    /// A round of `curl_multi_perform` (or an unpause) that delivered body bytes to this
    /// transfer has ended: bytes that arrived together can be passed on as one piece.
    func transferDidEndRound(_ transfer: CurlTransfer)
    /// Called exactly once per started transfer, after libcurl let go of it.
    func transfer(_ transfer: CurlTransfer, didFinish result: CurlResult)
    /// A transfer paused by its delegate is about to be resumed (its held bytes follow at once).
    func transferWillResume(_ transfer: CurlTransfer)
}

extension CurlTransferDelegate {
    /// Does nothing: most delegates never pause.
    public func transferWillResume(_ transfer: CurlTransfer) {}
}
