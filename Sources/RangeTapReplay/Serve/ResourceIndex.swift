import RangeTapCore

/// What a capture holds of each resource, reassembled: the bytes (where they sit in
/// `body.bin`), the complete length and the recorded metadata. Resources are keyed by path
/// and query; when several origins served the same path, the first one recorded is kept.
struct ResourceIndex: Sendable {
    /// A disjoint span of a resource and where its bytes sit in `body.bin`.
    struct Segment: Sendable {
        var span: Range<Int64>
        var fileOffset: Int64
    }

    /// One resource as the ideal origin serves it.
    struct Resource: Sendable {
        /// Path and query.
        var path: String
        /// `host:port` it was fetched from, when recorded.
        var authority: String?
        /// Complete length, when a response said it.
        var length: Int64?
        /// Recorded Content-Type.
        var contentType: String?
        /// Recorded ETag.
        var etag: String?
        /// Recorded Last-Modified.
        var lastModified: String?
        /// Bytes captured, sorted and disjoint.
        var segments: [Segment] = []
        /// The offsets captured.
        var covered = ByteRangeSet()
        /// Why the resource cannot be served, when its length or bytes lie beyond
        /// ``ResourceLimit/largestLength`` (a hostile `Content-Range`, faithfully recorded).
        var tooLarge: String?

        /// Whether every byte of the representation is in the capture.
        var isComplete: Bool {
            guard let length else { return false }
            return covered.contains(0..<length)
        }
    }

    /// Resources by path and query.
    private(set) var resources: [String: Resource] = [:]
    /// Paths in order of first request.
    private(set) var order: [String] = []
    private let body: BodyFile?

    /// Reassembles every resource of `reader`'s capture. Where responses overlap, the first
    /// recording of a byte wins.
    init(reader: CaptureReader) throws {
        struct Open {
            var path: String
            var method: String
            var status: Int?
            var bytes: Int64 = 0
            var usable: Bool
            var declaresLength: Bool = false
        }
        var open: [Int: Open] = [:]
        var pieces: [String: [(at: Int64, size: Int64, file: Int64)]] = [:]
        var resources: [String: Resource] = [:]
        var order: [String] = []
        try reader.forEachEvent { event in
            switch event {
            case .request(let r):
                guard r.method == "GET" || r.method == "HEAD" else { return }
                let source = r.url ?? r.target
                let path = RequestPath.originForm(source)
                let authority = RequestPath.authority(source)
                if resources[path] == nil {
                    resources[path] = Resource(path: path, authority: authority)
                    order.append(path)
                }
                // Another origin's resource of the same path is left out.
                let usable = resources[path]?.authority == authority
                open[r.exchange] = Open(path: path, method: r.method, usable: usable)
            case .response(let h):
                guard var o = open[h.exchange], o.usable, var res = resources[o.path] else { return }
                o.status = h.status
                let fields = h.lines
                switch h.status {
                case 200, 206, 416:
                    if res.length == nil {
                        if let cr = fields.first(named: "Content-Range").flatMap({ try? ContentRange.parse($0) }),
                            let total = cr.completeLength
                        {
                            res.length = total
                        } else if h.status == 200, fields.first(named: "Transfer-Encoding") == nil,
                            let cl = fields.first(named: "Content-Length").flatMap(ContentLength.parse)
                        {
                            res.length = cl
                        }
                    }
                    if res.tooLarge == nil, let length = res.length {
                        res.tooLarge = ResourceLimit.problem(length: length)
                    }
                    o.declaresLength = fields.first(named: "Content-Length") != nil
                    if h.status != 416 {
                        let type = fields.first(named: "Content-Type")
                        if res.contentType == nil, let type, !type.lowercased().hasPrefix("multipart/byteranges") {
                            res.contentType = type
                        }
                        if res.etag == nil { res.etag = fields.first(named: "ETag") }
                        if res.lastModified == nil { res.lastModified = fields.first(named: "Last-Modified") }
                    }
                default:
                    break
                }
                resources[o.path] = res
                open[h.exchange] = o
            case .chunk(let c):
                guard var o = open[c.exchange], o.usable, o.method == "GET", o.status == 200 || o.status == 206,
                    let at = c.resourceOffset, let file = c.bodyOffset
                else { return }
                if let why = ResourceLimit.problem(offset: at, size: Int64(c.size)) {
                    if resources[o.path]?.tooLarge == nil { resources[o.path]?.tooLarge = why }
                    return
                }
                pieces[o.path, default: []].append((at, Int64(c.size), file))
                o.bytes = o.bytes.addingSaturating(Int64(c.size))
                open[c.exchange] = o
            case .end(let e):
                // A complete 200 without Content-Length (chunked) tells the length by its end.
                if let o = open[e.exchange], o.usable, o.method == "GET", o.status == 200, !o.declaresLength,
                    resources[o.path]?.length == nil
                {
                    resources[o.path]?.length = o.bytes
                }
                open[e.exchange] = nil
            case .cancel(let e):
                open[e.exchange] = nil
            case .error(let e):
                if let ex = e.exchange { open[ex] = nil }
            default:
                break
            }
        }
        for (path, list) in pieces {
            var covered = ByteRangeSet()
            var segments: [Segment] = []
            for p in list {
                let span = p.at..<(p.at + p.size)
                var gaps = ByteRangeSet()
                gaps.insert(span)
                for s in covered.spans { gaps.remove(s) }
                for g in gaps.spans { segments.append(Segment(span: g, fileOffset: p.file + (g.lowerBound - p.at))) }
                covered.insert(span)
            }
            resources[path]?.segments = segments.sorted { $0.span.lowerBound < $1.span.lowerBound }
            resources[path]?.covered = covered
        }
        self.resources = resources
        self.order = order
        body = reader.header.bodies ? try BodyFile(path: reader.path + "/body.bin") : nil
    }

    /// Whether the capture holds body bytes.
    var hasBodies: Bool { body != nil }

    /// The resource at `path` (path and query), if the capture has it.
    func resource(_ path: String) -> Resource? { resources[path] }

    /// The recorded bytes of `range` of the resource at `path`; throws when some are missing.
    func read(_ path: String, _ range: Range<Int64>) throws(FixtureError) -> [UInt8] {
        guard let body else { throw .noBodies("the capture") }
        guard let res = resources[path] else { throw .capture("no resource \(path)") }
        var out: [UInt8] = []
        out.reserveCapacity(Int(range.count))
        var position = range.lowerBound
        var low = 0
        var high = res.segments.count
        while low < high {
            let mid = (low + high) / 2
            if res.segments[mid].span.upperBound > position { high = mid } else { low = mid + 1 }
        }
        var i = low
        while position < range.upperBound {
            guard i < res.segments.count, res.segments[i].span.lowerBound <= position else {
                throw .capture("the capture has no bytes of \(path) at offset \(position)")
            }
            let seg = res.segments[i]
            let end = min(range.upperBound, seg.span.upperBound)
            try body.read(at: seg.fileOffset + (position - seg.span.lowerBound), count: Int(end - position), into: &out)
            position = end
            i += 1
        }
        return out
    }

    /// A line per resource: path, length and how much of it was captured.
    var listing: [String] {
        order.compactMap { resources[$0] }.map { r in
            let length = r.length.map { "\($0) bytes" } ?? "length unknown"
            let spans = r.covered.spans.prefix(8).map { "\($0.lowerBound)-\($0.upperBound - 1)" }.joined(
                separator: ", ")
            let more = r.covered.spans.count > 8 ? ", …" : ""
            return "\(r.path) (\(length); captured \(r.covered.count) bytes\(spans.isEmpty ? "" : ": \(spans)\(more)"))"
        }
    }
}
