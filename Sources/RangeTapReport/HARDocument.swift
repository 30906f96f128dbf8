import RangeTapCore

/// The HAR 1.2 document model (the fields rangetap fills), encoded by ``HARExport``.
///
/// Field names follow the HAR 1.2 spec; rangetap's own fields start with `_`, as the spec
/// allows for custom fields. Optional properties are left out of the JSON when nil.
struct HARDocument: Encodable, Sendable {
    var log: Log

    struct Log: Encodable, Sendable {
        var version = "1.2"
        var creator: Creator
        var pages: [Page]
        var entries: [Entry]
        var comment: String?
    }

    struct Creator: Encodable, Sendable {
        var name: String
        var version: String
    }

    struct Page: Encodable, Sendable {
        var startedDateTime: String
        var id: String
        var title: String
        var pageTimings: PageTimings
    }

    struct PageTimings: Encodable, Sendable {
        var onContentLoad: Double = -1
        var onLoad: Double = -1
    }

    struct Entry: Encodable, Sendable {
        var pageref: String?
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache = Cache()
        var timings: Timings
        var connection: String?
        var comment: String?
        var rangetapExchange: Int
        var clientConnection: Int
        /// The HTTP/2 stream id; left out for HTTP/1.x.
        var stream: Int?
        var upstreamReused: Bool?
        var upstreamPort: Int?
        var chunks: [Chunk]?
        var chunkCount: Int
        var cancelled: Cancelled?
        var error: String?
        var findings: [String]
        /// What `--fault` rules changed; left out when none was injected.
        var faults: [Fault]?
        /// What the player said in the request's CMCD (rangetap's decoding); left out when none.
        var cmcd: CMCDData?

        enum CodingKeys: String, CodingKey {
            case pageref, startedDateTime, time, request, response, cache, timings, connection, comment
            case rangetapExchange = "_rangetapExchange"
            case clientConnection = "_connection"
            case stream = "_stream"
            case upstreamReused = "_upstreamReused"
            case upstreamPort = "_upstreamPort"
            case chunks = "_chunks"
            case chunkCount = "_chunkCount"
            case cancelled = "_cancelled"
            case error = "_error"
            case findings = "_findings"
            case faults = "_rangetapFaults"
            case cmcd = "_cmcd"
        }
    }

    struct NameValue: Encodable, Sendable {
        var name: String
        var value: String
    }

    struct Request: Encodable, Sendable {
        var method: String
        var url: String
        var httpVersion: String
        var cookies: [NameValue] = []
        var headers: [NameValue]
        var queryString: [NameValue]
        var headersSize: Int
        var bodySize: Int64
    }

    struct Response: Encodable, Sendable {
        var status: Int
        var statusText: String
        var httpVersion: String
        var cookies: [NameValue] = []
        var headers: [NameValue]
        var content: Content
        var redirectURL: String
        var headersSize: Int
        var bodySize: Int64
        var interimStatuses: [Int]?

        enum CodingKeys: String, CodingKey {
            case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize
            case interimStatuses = "_interimStatuses"
        }
    }

    /// The response body: `text` (base64, `encoding` says so) when the capture has the bytes
    /// and they are within the export's limit; `comment` says why a recorded body was left out.
    struct Content: Encodable, Sendable {
        var size: Int64
        var mimeType: String
        var text: String?
        var encoding: String?
        var comment: String?
    }

    /// Always `{}`: rangetap sees no client cache.
    struct Cache: Encodable, Sendable {
        private enum CodingKeys: CodingKey {}

        func encode(to encoder: any Encoder) throws {
            _ = encoder.container(keyedBy: CodingKeys.self)
        }
    }

    struct Timings: Encodable, Sendable {
        var blocked: Double = -1
        var dns: Double = -1
        var connect: Double = -1
        var ssl: Double = -1
        var send: Double
        var wait: Double
        var receive: Double
    }

    /// One body chunk: `t` in ms after the request, `size` bytes at body offset `offset`
    /// (`resourceOffset` within the resource, when known).
    struct Chunk: Encodable, Sendable {
        var t: Double
        var size: Int
        var offset: Int64
        var resourceOffset: Int64?
    }

    /// A fault a `--fault` rule injected: the rule as written, the action, what it changed,
    /// and `t` in ms after the request.
    struct Fault: Encodable, Sendable {
        var rule: String
        var action: String
        var detail: String
        var t: Double
    }

    /// Byte counts of a client cancel.
    struct Cancelled: Encodable, Sendable {
        var delivered: Int64
        var received: Int64
        var sendBuffer: Int?
    }
}
