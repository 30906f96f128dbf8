/// Every check the probe runs. The raw value is the stable `id` in JSON.
public enum ProbeCheckID: String, Sendable, CaseIterable {
    // Resource.
    case head
    case get
    case acceptRanges = "accept-ranges"
    case contentType = "content-type"
    case validators
    // Single ranges.
    case rangeProbe = "range-probe"
    case rangeMiddle = "range-middle"
    case rangeOpen = "range-open"
    case rangeSuffix = "range-suffix"
    case rangeLastByte = "range-last-byte"
    case rangeFromZero = "range-from-zero"
    case rangeClamped = "range-clamped"
    case partialHeaders = "partial-headers"
    // Unsatisfiable.
    case unsatisfiablePastEnd = "unsatisfiable-past-end"
    case unsatisfiableSuffixZero = "unsatisfiable-suffix-zero"
    // Invalid and unusual.
    case invalidReversed = "invalid-reversed"
    case invalidUnit = "invalid-unit"
    case unitCase = "unit-case"
    case straySpaces = "stray-spaces"
    // Multiple ranges.
    case multiRange = "multi-range"
    case multiOverlap = "multi-overlap"
    // If-Range.
    case ifRangeETag = "if-range-etag"
    case ifRangeDate = "if-range-date"
    // Method and version.
    case headRange = "head-range"
    case http10Range = "http10-range"
    // Keep-alive.
    case keepAliveReuse = "keepalive-reuse"
    case keepAliveAfterCancel = "keepalive-after-cancel"
    case connectionClose = "connection-close"
    case http10KeepAlive = "http10-keepalive"
    // HTTP/2 connection (with --http2, in place of keep-alive and HTTP/1.0).
    case http2Negotiated = "http2-negotiated"
    case http2ConcurrentStreams = "http2-concurrent-streams"
    case http2ResetStream = "http2-reset-stream"
    // Headers.
    case headerCase = "header-case"
    case headerDuplicates = "header-duplicates"
    case headerLineEndings = "header-line-endings"
    case headerSyntax = "header-syntax"
    // Compression.
    case compressionRange = "compression-range"

    /// The area the check belongs to.
    public var area: ProbeArea {
        switch self {
        case .head, .get, .acceptRanges, .contentType, .validators: .resource
        case .rangeProbe, .rangeMiddle, .rangeOpen, .rangeSuffix, .rangeLastByte, .rangeFromZero, .rangeClamped,
            .partialHeaders:
            .singleRange
        case .unsatisfiablePastEnd, .unsatisfiableSuffixZero: .unsatisfiable
        case .invalidReversed, .invalidUnit, .unitCase, .straySpaces: .invalidRange
        case .multiRange, .multiOverlap: .multiRange
        case .ifRangeETag, .ifRangeDate: .ifRange
        case .headRange, .http10Range: .methodVersion
        case .keepAliveReuse, .keepAliveAfterCancel, .connectionClose, .http10KeepAlive: .keepAlive
        case .http2Negotiated, .http2ConcurrentStreams, .http2ResetStream: .http2
        case .headerCase, .headerDuplicates, .headerLineEndings, .headerSyntax: .headers
        case .compressionRange: .compression
        }
    }

    /// What is checked, in a few words.
    public var title: String {
        switch self {
        case .head: "HEAD answers 200 with the GET's length"
        case .get: "plain GET: 200, Content-Length equals the body"
        case .acceptRanges: "Accept-Ranges: bytes on the 200 and HEAD responses"
        case .contentType: "Content-Type present and plausible"
        case .validators: "ETag and Last-Modified well-formed"
        case .rangeProbe: "bytes=0-1, the player's first probe"
        case .rangeMiddle: "a range in the middle"
        case .rangeOpen: "an open-ended range N-"
        case .rangeSuffix: "a suffix range -N"
        case .rangeLastByte: "the last byte"
        case .rangeFromZero: "bytes=0-, the whole file as 206"
        case .rangeClamped: "an end past the length is clamped, not refused"
        case .partialHeaders:
            "a 206 carries the Date, ETag, Cache-Control, Expires, Content-Location and Vary of the 200"
        case .unsatisfiablePastEnd: "first byte at the length: 416 with bytes */LEN"
        case .unsatisfiableSuffixZero: "bytes=-0: 416 with bytes */LEN"
        case .invalidReversed: "bytes=500-100 (last before first): ignored or 416"
        case .invalidUnit: "pages=0-1 (unknown unit): ignored"
        case .unitCase: "Bytes=0-1 (unit in another case): honoured"
        case .straySpaces: "bytes = 0 - 1 (stray spaces): ignored, refused or tolerated"
        case .multiRange: "bytes=0-0,200-299: multipart/byteranges, coalesced or 200"
        case .multiOverlap: "bytes=0-9,5-14 (overlapping): multipart, coalesced or 200"
        case .ifRangeETag: "If-Range with the ETag: 206 when it matches, 200 when not"
        case .ifRangeDate: "If-Range with a date: 206 when it matches, 200 when older"
        case .headRange: "HEAD with a Range is answered as HEAD (200)"
        case .http10Range: "HTTP/1.0 request with a Range gets 206"
        case .keepAliveReuse: "ranges and a 416 on one kept-alive connection"
        case .keepAliveAfterCancel: "a client hanging up mid-body, then a new connection"
        case .connectionClose: "Connection: close on HTTP/1.1 is answered with close"
        case .http10KeepAlive: "HTTP/1.0 with and without Connection: keep-alive"
        case .http2Negotiated: "every response came over HTTP/2"
        case .http2ConcurrentStreams: "8 range requests at once: concurrent streams on one connection, right bytes"
        case .http2ResetStream: "a stream reset mid-body leaves the connection usable"
        case .headerCase: "header names in their usual case"
        case .headerDuplicates: "no duplicated or conflicting header fields"
        case .headerLineEndings: "CRLF line endings"
        case .headerSyntax: "every head line a status line, a Name: value field line or the blank line, CRLF-terminated"
        case .compressionRange: "Range with Accept-Encoding: gzip agrees with the 200"
        }
    }

    /// Whether the check runs with `--http2` (true) or without it (false): the HTTP/1.x
    /// connection and version checks are replaced by the HTTP/2 connection checks.
    public func runs(http2: Bool) -> Bool {
        switch self {
        case .http10Range, .keepAliveReuse, .keepAliveAfterCancel, .connectionClose, .http10KeepAlive: !http2
        case .http2Negotiated, .http2ConcurrentStreams, .http2ResetStream: http2
        default: true
        }
    }

    /// The section of RFC 9110 (or RFC 9112 for HTTP/1.1 connection handling, RFC 9113 for
    /// HTTP/2) the check follows.
    public var rfc: String {
        switch self {
        case .head: "RFC 9110 §9.3.2"
        case .get: "RFC 9110 §8.6"
        case .acceptRanges: "RFC 9110 §14.3"
        case .contentType: "RFC 9110 §8.3"
        case .validators: "RFC 9110 §8.8"
        case .rangeProbe, .rangeMiddle, .rangeOpen, .rangeSuffix, .rangeLastByte, .rangeFromZero:
            "RFC 9110 §14.1.2, §14.4, §15.3.7"
        case .rangeClamped: "RFC 9110 §14.1.2"
        case .partialHeaders: "RFC 9110 §15.3.7"
        case .unsatisfiablePastEnd, .unsatisfiableSuffixZero: "RFC 9110 §15.5.17, §14.4"
        case .invalidReversed, .straySpaces: "RFC 9110 §14.1.1, §14.2"
        case .invalidUnit: "RFC 9110 §14.2"
        case .unitCase: "RFC 9110 §14.1"
        case .multiRange, .multiOverlap: "RFC 9110 §14.2, §14.6, §15.3.7.2"
        case .ifRangeETag, .ifRangeDate: "RFC 9110 §13.1.5"
        case .headRange: "RFC 9110 §14.2"
        case .http10Range: "RFC 9110 §14.2"
        case .keepAliveReuse, .keepAliveAfterCancel: "RFC 9112 §9.3"
        case .connectionClose: "RFC 9110 §7.6.1, RFC 9112 §9.6"
        case .http10KeepAlive: "RFC 9112 §9.3, Appendix C.2.2"
        case .http2Negotiated: "RFC 9113 §3.2, §3.3"
        case .http2ConcurrentStreams: "RFC 9113 §5, §5.1.2"
        case .http2ResetStream: "RFC 9113 §5.1, §5.4.2, §6.4"
        case .headerCase: "RFC 9110 §5.1"
        case .headerDuplicates: "RFC 9110 §5.2, §5.3"
        case .headerLineEndings: "RFC 9112 §2.2"
        case .headerSyntax: "RFC 9112 §2.2, §5.1, §5.2"
        case .compressionRange: "RFC 9110 §8.4, §14.1.2, §8.8.3"
        }
    }
}
