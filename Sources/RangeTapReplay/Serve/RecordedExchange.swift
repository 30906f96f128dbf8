import Foundation
import RangeTapCore

/// One exchange of a capture, kept as the faithful fixture replays it: the raw heads, the
/// chunks with their times and places in `body.bin`, and how the body ended.
struct RecordedExchange: Sendable {
    /// A response head (1xx or final) and when it arrived.
    struct Head: Sendable {
        var t: CaptureTime
        var status: Int
        var lines: [HeaderLine]
    }

    /// Body bytes that arrived together.
    struct Chunk: Sendable {
        var t: CaptureTime
        var size: Int
        var bodyOffset: Int64
    }

    /// How the recorded body ended.
    enum Ending: Sendable {
        /// Still open when the capture ended.
        case open
        /// Ended as the origin framed it, with chunked trailers if any.
        case end(t: CaptureTime, trailers: [HeaderLine])
        /// The client cut it short.
        case cancel(t: CaptureTime)
        /// A failure: the origin dropped the connection, or the proxy answered `status` itself.
        case error(t: CaptureTime, status: Int?, message: String)
    }

    var id: Int
    var method: String
    /// Origin-form target (path and query).
    var path: String
    /// The raw `Range` value asked.
    var range: String?
    /// The origin the request went to (from its recorded URL), if known.
    var origin: RequestOrigin? = nil
    var requestAt: CaptureTime
    var interims: [Head] = []
    var response: Head?
    var chunks: [Chunk] = []
    var ending: Ending = .open
    /// Whether a chunk had no bytes in `body.bin` (a `--no-bodies` capture).
    var missingBodies = false

    /// Whether the recorded head frames the body with `Transfer-Encoding: chunked`.
    var isChunked: Bool {
        response?.lines.values(named: "Transfer-Encoding").contains {
            $0.lowercased().split(separator: ",").last?.trimmingCharacters(in: .whitespaces) == "chunked"
        } ?? false
    }

    /// Whether a response to `method` with this status carries a body at all.
    func hasBody(method: String) -> Bool {
        guard let status = response?.status else { return false }
        return method != "HEAD" && status >= 200 && status != 204 && status != 304
    }

    /// Whether the recorded response leaves the connection unusable for a next request: the
    /// origin said `Connection: close`, spoke HTTP/1.0 without keep-alive, delimited the body by
    /// closing, or the body did not end as framed.
    var closesConnection: Bool {
        guard let response else { return true }
        guard case .end = ending else { return true }
        let tokens = response.lines.values(named: "Connection").flatMap {
            $0.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if tokens.contains("close") { return true }
        if response.lines.first?.content.hasPrefix("HTTP/1.0") == true, !tokens.contains("keep-alive") { return true }
        if hasBody(method: method), !isChunked, response.lines.first(named: "Content-Length") == nil { return true }
        return false
    }

    /// `#3 GET /a.mp4 range=bytes=0-1 -> 206`, for 404 bodies.
    var summary: String {
        "#\(id) \(method) \(path)\(range.map { " range=\($0)" } ?? "") -> \(response.map { String($0.status) } ?? "no response")\(origin.map { " (host \($0))" } ?? "")"
    }
}
