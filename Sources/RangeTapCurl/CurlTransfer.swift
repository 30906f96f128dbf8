import CCurl
import Foundation
import RangeTapSystem

/// One upstream transfer: an easy handle plus its delegate.
///
/// Created on any thread; after ``CurlMulti/start(_:)`` it is touched only on the multi thread.
public final class CurlTransfer: @unchecked Sendable {
    /// What is fetched.
    public let request: CurlRequest
    /// Who receives the data.
    public let delegate: any CurlTransferDelegate
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl's `CURLOPT_ERRORBUFFER`: it keeps the pointer and writes the message when a
    /// transfer fails, so the buffer lives as long as the transfer (freed in `deinit`, after
    /// the easy handle). One byte more than `CURL_ERROR_SIZE`, zeroed: always terminated.
    private let errorBuffer: UnsafeMutablePointer<CChar> = {
        let count = Int(CURL_ERROR_SIZE) + 1
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: count)
        buffer.initialize(repeating: 0, count: count)
        return buffer
    }()
    var paused = false
    /// Set when the body source had no bytes yet (`CURL_READFUNC_PAUSE`).
    var sendPaused = false
    var finished = false
    /// True while `curl_easy_pause` resumes the transfer: libcurl is then handing over what it
    /// kept while the transfer was paused, bytes it already holds in memory. A delegate that
    /// pauses again in the middle makes libcurl copy the rest into a new buffer, once per
    /// pause, so it should take them all (see ``CurlTransferDelegate``).
    public internal(set) var deliveringHeld = false
    /// Set by the write callback; cleared when the multi thread ends the round.
    var receivedInRound = false
    /// Monotonic nanoseconds of the last byte received (or of the start, or of a resume).
    var lastActivity: UInt64 = 0

    /// A transfer that does nothing until started.
    public init(request: CurlRequest, delegate: any CurlTransferDelegate) {
        self.request = request
        self.delegate = delegate
    }

    deinit {
        release()
        errorBuffer.deinitialize(count: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.deallocate()
    }

    /// Whether libcurl opened a new connection for this transfer (false: reused one), and the
    /// connection's local port. Valid on the multi thread once headers arrive.
    public func connectionInfo() -> (reused: Bool, localPort: Int)? {
        guard let easy else { return nil }
        var connects: Int = 0
        var port: Int = 0
        guard ccurl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK,
            ccurl_easy_getinfo_long(easy, CURLINFO_LOCAL_PORT, &port) == CURLE_OK
        else { return nil }
        return (connects == 0, port)
    }

    /// The HTTP version the transfer's response came over: `"1.0"`, `"1.1"`, `"2"` (or `"3"`);
    /// nil before the response head. Valid on the multi thread.
    public func responseHTTPVersion() -> String? {
        guard let easy else { return nil }
        var version: Int = 0
        guard ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK else { return nil }
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case Int(CURL_HTTP_VERSION_3): return "3"
        default: return nil
        }
    }

    /// Whether the system's hashed CA directory is there (looked up once per process).
    private static let systemCertificateDirectoryExists = FileManager.default.fileExists(atPath: "/etc/ssl/certs")

    /// Builds the easy handle: `handle` when given (one `curl_easy_reset` left idle), else a new
    /// one; `share`, when given, is the multi handle's share of TLS sessions. Returns an error
    /// text when libcurl refuses an option.
    func prepare(
        reusing handle: UnsafeMutableRawPointer? = nil, sharing share: UnsafeMutableRawPointer? = nil
    ) -> String? {
        guard let easy = handle ?? curl_easy_init() else { return "curl_easy_init failed" }
        self.easy = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        var bad: String?
        // `what` is only built for an option that failed: it names the option and its value.
        func check(_ code: CURLcode, _ what: @autoclosure () -> String) {
            if code != CURLE_OK, bad == nil { bad = "\(what()): \(String(cString: curl_easy_strerror(code)))" }
        }
        check(ccurl_easy_setopt_string(easy, CURLOPT_URL, request.url), "URL \(request.url)")
        check(ccurl_easy_setopt_string(easy, CURLOPT_PROXY, request.proxy ?? ""), "PROXY \(request.proxy ?? "")")
        if request.proxy != nil {
            // An explicit proxy is used for every host: a `no_proxy` in the environment must not bypass it.
            check(ccurl_easy_setopt_string(easy, CURLOPT_NOPROXY, ""), "NOPROXY")
            // An https:// URL through the proxy is a CONNECT tunnel: its `200 Connection
            // established` head is the proxy's, never the origin's response.
            check(ccurl_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1), "SUPPRESS_CONNECT_HEADERS")
        }
        check(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        if let share { check(ccurl_easy_setopt_pointer(easy, CURLOPT_SHARE, share), "SHARE") }
        // The path as the client sent it: no dot-segment removal (`/x/../a` stays).
        check(ccurl_easy_setopt_long(easy, CURLOPT_PATH_AS_IS, 1), "PATH_AS_IS")
        switch request.http2 {
        case .overTLS?:
            check(ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, ccurl_http_version_2tls), "HTTP_VERSION")
            check(ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1), "PIPEWAIT")
        case .priorKnowledge?:
            check(
                ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, ccurl_http_version_2_prior_knowledge), "HTTP_VERSION"
            )
            check(ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1), "PIPEWAIT")
        case nil:
            check(
                ccurl_easy_setopt_long(
                    easy, CURLOPT_HTTP_VERSION, request.http10 ? ccurl_http_version_1_0 : ccurl_http_version_1_1),
                "HTTP_VERSION")
        }
        if request.freshConnection {
            check(ccurl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1), "FRESH_CONNECT")
            check(ccurl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1), "FORBID_REUSE")
        }
        check(ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMs), "CONNECTTIMEOUT")
        if request.timeoutMs > 0 {
            check(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutMs), "TIMEOUT_MS")
        }
        check(ccurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, request.bufferSize), "BUFFERSIZE")
        check(ccurl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1), "TCP_NODELAY")
        check(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
        if let caFile = request.caFile {
            check(ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile), "CAINFO \(caFile)")
            // CAINFO replaces the bundle; the system's hashed directory keeps its roots trusted.
            if Self.systemCertificateDirectoryExists {
                check(ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, "/etc/ssl/certs"), "CAPATH")
            }
        }
        if request.insecure {
            check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0), "SSL_VERIFYPEER")
            check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0), "SSL_VERIFYHOST")
        }
        switch request.method {
        case "GET":
            // A GET with a body stays a GET (libcurl would make it a POST for the body).
            if request.hasBody { check(ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, "GET"), "CUSTOMREQUEST") }
        case "HEAD": check(ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1), "NOBODY")
        default: check(ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method), "CUSTOMREQUEST")
        }
        if request.bodySource != nil {
            // Read as it is sent: POST framing (a length, or chunked without one), the method
            // set above.
            check(ccurl_easy_setopt_long(easy, CURLOPT_POST, 1), "POST")
            check(
                ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.bodyLength ?? -1)),
                "POSTFIELDSIZE")
            check(ccurl_easy_setopt_data_callback(easy, CURLOPT_READFUNCTION, curlReadCallback), "READFUNCTION")
            check(ccurl_easy_setopt_pointer(easy, CURLOPT_READDATA, me), "READDATA")
        } else if let body = request.body {
            check(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "POSTFIELDSIZE")
            if body.isEmpty {
                check(ccurl_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, ""), "COPYPOSTFIELDS")
            } else {
                body.withUnsafeBytes { p in
                    check(
                        ccurl_easy_setopt_pointer(
                            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: p.baseAddress!)),
                        "COPYPOSTFIELDS")
                }
            }
        }
        // Appended at the list's tail (libcurl's append walks from the node it is given, and
        // returns that node): linear in the number of lines, not quadratic.
        var tail: UnsafeMutablePointer<curl_slist>?
        for line in request.headers {
            let appended: UnsafeMutablePointer<curl_slist>? =
                request.headersAreLatin1
                ? Self.latin1CString(line) { curl_slist_append(tail, $0) }
                : curl_slist_append(tail, line)
            guard let appended else { continue }
            if tail == nil {
                headerList = appended
                tail = appended
            } else {
                tail = tail!.pointee.next
            }
        }
        if let headerList { check(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "HTTPHEADER") }
        check(ccurl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback), "HEADERFUNCTION")
        check(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me), "HEADERDATA")
        check(ccurl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback), "WRITEFUNCTION")
        check(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me), "WRITEDATA")
        check(ccurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me), "PRIVATE")
        return bad
    }

    /// `text` as a NUL-terminated C string of one byte per character (ISO-8859-1), for `body`;
    /// characters over U+00FF (never in a line read as Latin-1) go as UTF-8.
    static func latin1CString<R>(_ text: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 1)
        for scalar in text.unicodeScalars {
            if scalar.value < 0x100 {
                bytes.append(UInt8(scalar.value))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }

    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        System.monotonicNanoseconds()
    }

    /// The error text libcurl left for the last failure.
    var errorText: String {
        String(cString: errorBuffer)
    }

    /// Takes the easy handle away from the transfer (after its removal from the multi handle)
    /// and frees the header list; the caller resets the handle for another transfer or frees it.
    func detachHandle() -> UnsafeMutableRawPointer? {
        let handle = easy
        easy = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        return handle
    }

    /// Frees the easy handle and header list (after removal from the multi handle).
    func release() {
        if let handle = detachHandle() { curl_easy_cleanup(handle) }
    }

    /// Whether the easy handle may be reset and used for another transfer. HTTP/1 only: with
    /// libcurl 7.88, HTTP/2 transfers on reset handles failed (HTTP2ProbeTests,
    /// HTTP2RecordingTests), so HTTP/2 transfers neither take nor give back a used handle.
    var reusesHandles: Bool { request.http2 == nil }
}

private let curlHeaderCallback: ccurl_data_callback = { ptr, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    let n = size * count
    transfer.lastActivity = CurlTransfer.now()
    transfer.delegate.transfer(transfer, didReceiveHeaderLine: UnsafeRawBufferPointer(start: ptr, count: n))
    return n
}

private let curlReadCallback: ccurl_data_callback = { ptr, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    guard let source = transfer.request.bodySource, let ptr else { return ccurl_readfunc_abort }
    switch source.read(into: UnsafeMutableRawBufferPointer(start: ptr, count: size * count)) {
    case .bytes(let n):
        // The origin taking the body is activity: a long upload is not an idle transfer.
        transfer.lastActivity = CurlTransfer.now()
        return n
    case .end:
        return 0
    case .pause:
        transfer.sendPaused = true
        return ccurl_readfunc_pause
    case .abort:
        return ccurl_readfunc_abort
    }
}

private let curlWriteCallback: ccurl_data_callback = { ptr, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    let n = size * count
    switch transfer.delegate.transfer(transfer, didReceiveBody: UnsafeRawBufferPointer(start: ptr, count: n)) {
    case .consumed:
        transfer.receivedInRound = true
        transfer.lastActivity = CurlTransfer.now()
        return n
    case .pause:
        transfer.paused = true
        return ccurl_writefunc_pause
    case .abort:
        // The transfer fails here, inside `curl_multi_perform`, and libcurl would keep an HTTP/2
        // connection for reuse with the stream's RST_STREAM still in its send buffer (see
        // CurlMulti's `finish`): its reuse is forbidden first, so the origin sees the close.
        if transfer.request.closeConnectionWhenEndedEarly, let easy = transfer.easy {
            _ = ccurl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1)
        }
        return 0
    }
}
