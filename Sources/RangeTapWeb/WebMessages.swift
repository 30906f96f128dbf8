import Foundation
import RangeTapCore
import RangeTapReport

/// The JSON the page reads (docs/web.md), short keys because thousands of exchanges cross at once.
struct WebExchange: Encodable {
    var id: Int
    var c: Int
    var s: Int?
    var m: String
    var h: String
    var p: String
    var v: String
    var rq: String?
    var st: Int?
    var cr: String?
    var exp: Int64?
    var got: Int64
    var rcv: Int64
    var o: String
    var t0: Double
    var tf: Double?
    var t1: Double?
    var off: Int64?
    var pts: [[Double]]
    var pause: [[Double?]]
    var pauseTotal: Double
    var fault: [String]
    var seek: Bool
    var media: WebMedia?
    var fx: [String]

    /// At most this many points of a body's arrival.
    static let maxPoints = 32

    init(_ e: CaptureAnalysis.Exchange) {
        let r = e.record
        id = r.id
        c = r.connection
        s = r.stream
        m = r.method
        let parts = URLParts(r.url ?? r.target)
        h = parts.authorityText.map(String.init) ?? ""
        p = r.path
        v = r.isHTTP2Client ? "h2" : "h1"
        rq = r.requestRange
        st = r.clientStatus
        cr = r.contentRange
        exp = e.expectedBytes
        rcv = r.bytesSent
        got = r.bytesDelivered ?? r.bytesSent
        o =
            switch r.outcome {
            case .open: "open"
            case .complete: "complete"
            case .cancelled: "cancelled"
            case .failed: r.failure == .refused ? "refused" : "error"
            }
        t0 = Self.seconds(r.start)
        tf = r.firstChunkAt.map(Self.seconds)
        t1 = r.end.map(Self.seconds)
        off = r.chunks.first?.resourceOffset ?? (r.clientStatus == 200 ? 0 : nil)
        pts = Self.points(r.chunks)
        pause = r.pausedSince.map { [[Self.seconds($0), nil]] } ?? []
        pauseTotal = Double(r.pausedNs) / 1e9
        fault = r.faults.map { "\($0.action): \($0.detail)" }
        seek = e.findings.contains { $0.code == FindingCode.seek.rawValue }
        media = e.media.map(WebMedia.init)
        fx = e.findings.map(\.code)
    }

    /// Seconds, to the microsecond (what a page can draw; full precision doubles the JSON).
    static func seconds(_ t: CaptureTime) -> Double { (Double(t) / 1e3).rounded() / 1e6 }

    /// The body's arrival as `[t, bytes so far]`, thinned to ``maxPoints`` (first and last exact).
    static func points(_ chunks: [ChunkEvent]) -> [[Double]] {
        guard !chunks.isEmpty else { return [] }
        var total: Int64 = 0
        var all: [[Double]] = []
        all.reserveCapacity(chunks.count)
        for c in chunks {
            total += Int64(c.size)
            all.append([seconds(c.t), Double(total)])
        }
        guard all.count > maxPoints else { return all }
        let step = Double(all.count - 1) / Double(maxPoints - 1)
        return (0..<maxPoints).map { all[Int((Double($0) * step).rounded())] }
    }
}

/// An exchange's place in media time.
struct WebMedia: Encodable {
    var label: String
    var from: Double?
    var to: Double?

    init(_ span: MediaSpan) {
        label = TimelineText.mediaCell(span)
        from = span.start
        to = span.end
    }
}

/// One finding.
struct WebFinding: Encodable {
    var code: String
    var sev: String
    var ex: Int?
    var msg: String

    init(code: String, sev: String, ex: Int?, msg: String) {
        self.code = code
        self.sev = sev
        self.ex = ex
        self.msg = msg
    }

    init(_ f: Finding) {
        code = f.code
        sev = f.severity.rawValue
        ex = f.exchange
        msg = f.message
    }
}

/// The totals.
struct WebSummary: Encodable {
    var requests: Int
    var open: Int
    var bytes: Int64
    var unique: Int64
    var redundancy: Double
    var cancels: Int
    var seeks: Int
    var errors: Int
    var duration: Double

    init(_ a: CaptureAnalysis, latest: CaptureTime) {
        let s = a.summary
        requests = s.requests
        open = a.exchanges.filter { $0.record.outcome == .open }.count
        bytes = s.bytesFetched
        unique = s.uniqueBytes
        redundancy = s.uniqueBytes > 0 ? Double(s.bytesFetched) / Double(s.uniqueBytes) : 1
        cancels = s.cancels
        seeks = s.seeks
        errors = s.errors
        duration = WebExchange.seconds(latest)
    }
}

/// What the capture is.
struct WebCaptureInfo: Encodable {
    var path: String
    var tool: String
    var startedAt: String
    var live: Bool
}

/// The first event of a stream: everything.
struct WebReset: Encodable {
    var capture: WebCaptureInfo
    var exchanges: [WebExchange]
    var findings: [WebFinding]
    var summary: WebSummary
}

/// Later events: the exchanges that changed, all findings, the summary.
struct WebUpdate: Encodable {
    var exchanges: [WebExchange]
    var findings: [WebFinding]
    var summary: WebSummary
}

/// One exchange's detail (`/api/exchange/ID`).
struct WebDetail: Encodable {
    struct DetailFinding: Encodable {
        var code: String
        var sev: String
        var msg: String
        var evidence: [String]
    }
    var id: Int
    var request: [String]
    var response: [String]
    var clientResponse: [String]?
    var flags: [[String]]
    var chunks: [[Double]]
    var deliveries: [[Double]]
    var findings: [DetailFinding]
    var media: WebMedia?

    init(_ e: CaptureAnalysis.Exchange) {
        let r = e.record
        id = r.id
        // The request line as the client sent it (its parts are recorded apart), then its fields.
        request = ["\(r.method) \(r.target) \(r.requestVersion)"] + r.requestHeaders.map { $0.content.description }
        response = r.responseLines.map { $0.content.description }
        clientResponse = r.clientHeadRewritten ? r.clientResponseLines.map { $0.content.description } : nil
        flags = e.findings.flatMap { f in f.evidence.map { [$0, f.code] } }
        chunks = r.chunks.map { [WebExchange.seconds($0.t), Double($0.resourceOffset ?? $0.offset), Double($0.size)] }
        deliveries = r.deliveries.map { [WebExchange.seconds($0.t), Double($0.bytes)] }
        findings = e.findings.map {
            DetailFinding(code: $0.code, sev: $0.severity.rawValue, msg: $0.message, evidence: $0.evidence)
        }
        media = e.media.map(WebMedia.init)
    }
}
