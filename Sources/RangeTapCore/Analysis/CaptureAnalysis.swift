/// What a capture says: each exchange with its findings, per-resource and per-connection
/// figures, and totals. Built in one pass over the events, so memory does not grow with body
/// size; used by `inspect`, and by probe and replay for the same checks.
public struct CaptureAnalysis: Sendable {
    /// One exchange and what was found about it.
    public struct Exchange: Sendable {
        /// The assembled exchange (its `chunks` are empty unless chunks were kept).
        public var record: ExchangeRecord
        /// Findings about this exchange.
        public var findings: [Finding]
        /// Body bytes the response declared (Content-Length), if any.
        public var expectedBytes: Int64?
        /// The span of the resource the body covered, when known.
        public var resourceSpan: Range<Int64>?
        /// Bytes of this response already fetched by earlier exchanges.
        public var refetchedBytes: Int64
        /// What the exchange fetched in media terms (segment, rendition, media time), when the
        /// capture's playlists, manifests or MP4 index tell (RangeTapMedia's `MediaMap`); nil otherwise.
        public var media: MediaSpan? = nil
        /// What the player said about itself in the request's CMCD (CTA-5004); nil when it sent none.
        public var cmcd: CMCDData? = nil
    }

    /// Figures for one URL.
    public struct Resource: Sendable, Equatable {
        /// The URL.
        public var url: String
        /// Complete length, when a response said it.
        public var length: Int64?
        /// Body bytes received over all exchanges.
        public var bytesFetched: Int64
        /// Distinct resource bytes among them.
        public var uniqueBytes: Int64
        /// Exchanges for it.
        public var requests: Int
        /// `bytesFetched / uniqueBytes` (1 when nothing was fetched twice).
        public var redundancy: Double { uniqueBytes > 0 ? Double(bytesFetched) / Double(uniqueBytes) : 1 }
    }

    /// Figures for one client connection.
    public struct Connection: Sendable, Equatable {
        /// Connection id.
        public var id: Int
        /// Requests it carried.
        public var requests: Int
        /// Who closed it, if it closed.
        public var closedBy: ConnectionCloseEvent.Closer?
        /// The client side's HTTP version on it (`"1.1"`, `"2"` when its requests came as
        /// HTTP/2 streams, even inside a CONNECT tunnel); nil when it carried no request.
        public var clientHTTPVersion: String?
        /// HTTP/2 streams it carried (0 on an HTTP/1.x connection).
        public var streams = 0

        /// Whether its requests came as HTTP/2 streams.
        public var isHTTP2: Bool { streams > 0 }
    }

    /// Totals.
    public struct Summary: Sendable, Equatable {
        /// Exchanges.
        public var requests = 0
        /// Client connections.
        public var connections = 0
        /// Most requests on one connection.
        public var maxRequestsPerConnection = 0
        /// Body bytes received.
        public var bytesFetched: Int64 = 0
        /// Distinct resource bytes received.
        public var uniqueBytes: Int64 = 0
        /// Exchanges the client cancelled.
        public var cancels = 0
        /// Seeks detected.
        public var seeks = 0
        /// Exchanges that failed.
        public var errors = 0
        /// Findings by severity, those injected by `--fault` rules left out (they say nothing
        /// against the origin; anything that fails on findings counts these).
        public var findings: [Finding.Severity: Int] = [:]
        /// Findings injected by `--fault` rules (``Finding/injected``), by severity.
        public var injectedFindings: [Finding.Severity: Int] = [:]

        /// How many findings were injected by `--fault` rules.
        public var injectedCount: Int { injectedFindings.values.reduce(0, +) }
    }

    /// The capture header.
    public var header: CaptureHeader
    /// Exchanges in request order.
    public var exchanges: [Exchange] = []
    /// Findings not tied to one exchange (connection errors, per-resource findings).
    public var findings: [Finding] = []
    /// Resources in order of first request.
    public var resources: [Resource] = []
    /// Connections in order of opening.
    public var connections: [Connection] = []
    /// Totals.
    public var summary = Summary()
    /// Whether the capture ended in an incomplete line.
    public var truncatedTail = false
    /// The shaping of the client's link (`record --shape`) at the start and at each change;
    /// empty when the link was not shaped.
    public var shapes: [ShapeEvent] = []

    /// Analyses the capture at `path`: its events, and the multipart bodies when bodies were
    /// recorded. With `keepChunks`, each record keeps its chunk events (for waterfalls and HAR);
    /// without, memory stays independent of the number of chunks. What the exchanges fetched in
    /// media terms is RangeTapMedia's `MediaAnalysis.analyze`, which starts from this.
    public static func analyze(path: String, keepChunks: Bool = false) throws -> CaptureAnalysis {
        let reader = try CaptureReader(path: path)
        var builder = CaptureAnalysisBuilder(header: reader.header, keepChunks: keepChunks)
        try reader.forEachEvent { builder.apply($0) }
        var analysis = builder.finish()
        analysis.truncatedTail = reader.truncatedTail
        if reader.header.bodies {
            for (ex, chunks) in builder.multipartChunks {
                guard let i = analysis.exchanges.firstIndex(where: { $0.record.id == ex }) else { continue }
                var body: [UInt8] = []
                for c in chunks { body.append(contentsOf: try reader.bytes(of: c)) }
                analysis.exchanges[i].findings += MultipartCheck.findings(analysis.exchanges[i].record, body: body)
            }
        }
        // Findings made from the bodies (multipart parts) count in the summary too.
        FaultAttribution.apply(to: &analysis)
        analysis.summary = analysis.summarized()
        return analysis
    }

    /// Sets what each exchange fetched in media terms (RangeTapMedia's `MediaAnalysis`), by
    /// exchange id; exchanges not in `spans` get none.
    public mutating func setMedia(_ spans: [Int: MediaSpan]) {
        for i in exchanges.indices { exchanges[i].media = spans[exchanges[i].record.id] }
    }

    /// Adds findings a pass over the bodies made (RangeTapMedia's `MediaAnalysis`): each with its
    /// exchange or with the capture's, marked injected as ``FaultAttribution`` decides; the
    /// summary counts them.
    public mutating func addBodyFindings(_ found: [Finding]) {
        guard !found.isEmpty else { return }
        var byExchange = Dictionary(grouping: found) { $0.exchange ?? 0 }
        for i in exchanges.indices {
            guard let mine = byExchange.removeValue(forKey: exchanges[i].record.id) else { continue }
            exchanges[i].findings += mine
        }
        findings += byExchange.values.flatMap { $0 }
        FaultAttribution.apply(to: &self)
        summary = summarized()
    }

    /// Every finding, exchange ones first in exchange order, then the others.
    public var allFindings: [Finding] { exchanges.flatMap(\.findings) + findings }
}
