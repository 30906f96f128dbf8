import RangeTapCore

/// How a response body is framed toward the client.
enum ClientFraming: Equatable {
    /// No body follows (HEAD, 1xx, 204, 304).
    case noBody
    /// The origin's Content-Length, passed on: body bytes go out as they are.
    case contentLength
    /// Chunked (the origin's Transfer-Encoding line passed on; libcurl decoded its chunks, the
    /// encoder makes new ones, one per write).
    case chunked
    /// The body ends when rangetap closes the connection.
    case closeDelimited
    /// HTTP/2: DATA frames; the last one ends the stream.
    case http2
}

/// A response head exactly as the client gets it, and how its body is framed.
struct ClientHead: Equatable {
    /// Status code.
    var status: Int
    /// The head's bytes: status line, field lines, blank line.
    var bytes: [UInt8]
    /// Framing of the body after it.
    var framing: ClientFraming
    /// What rangetap changed relative to the origin's head (see docs/transparency.md).
    var changes: [HeadChange]

    /// The head as Latin-1 text.
    var text: String { Latin1.string(bytes) }
}
