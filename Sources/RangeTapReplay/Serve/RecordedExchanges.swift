import RangeTapCore

/// The exchanges of a capture and which one answers an incoming request.
struct RecordedExchanges: Sendable {
    /// Exchanges in recorded (request) order.
    private(set) var exchanges: [RecordedExchange] = []
    private var used: Set<Int> = []
    private var lastMatch: [String: Int] = [:]

    /// Reads every exchange of `reader`'s capture (CONNECT tunnels left out).
    init(reader: CaptureReader) throws {
        var byID: [Int: Int] = [:]
        try reader.forEachEvent { event in
            switch event {
            case .request(let r):
                guard r.method != "CONNECT" else { return }
                byID[r.exchange] = exchanges.count
                exchanges.append(RecordedExchange(id: r.exchange, method: r.method, path: RequestPath.originForm(r.url ?? r.target), range: r.headers.first(named: "Range"), requestAt: r.t))
            case .interim(let h):
                if let i = byID[h.exchange] { exchanges[i].interims.append(.init(t: h.t, status: h.status, lines: h.lines)) }
            case .response(let h):
                if let i = byID[h.exchange] { exchanges[i].response = .init(t: h.t, status: h.status, lines: h.lines) }
            case .chunk(let c):
                guard let i = byID[c.exchange] else { return }
                if let at = c.bodyOffset {
                    exchanges[i].chunks.append(.init(t: c.t, size: c.size, bodyOffset: at))
                } else {
                    exchanges[i].missingBodies = true
                }
            case .end(let e):
                if let i = byID[e.exchange] { exchanges[i].ending = .end(t: e.t, trailers: e.trailers) }
            case .cancel(let e):
                if let i = byID[e.exchange] { exchanges[i].ending = .cancel(t: e.t) }
            case .error(let e):
                if let ex = e.exchange, let i = byID[ex] { exchanges[i].ending = .error(t: e.t, status: e.status, message: e.message) }
            default:
                break
            }
        }
    }

    /// An index over given exchanges (tests).
    init(exchanges: [RecordedExchange]) {
        self.exchanges = exchanges
    }

    /// The exchange that answers `method path` with `range`: the first not yet used in recorded
    /// order, else the one used last for the same request. Marks it used.
    mutating func match(method: String, path: String, range: String?) -> RecordedExchange? {
        let key = "\(method) \(path) \(range.map(Self.canonicalRange) ?? "-")"
        let candidates = exchanges.indices.filter { i in
            let e = exchanges[i]
            return e.method == method && e.path == path && Self.sameRange(e.range, range)
        }
        if let i = candidates.first(where: { !used.contains($0) }) {
            used.insert(i)
            lastMatch[key] = i
            return exchanges[i]
        }
        if let i = lastMatch[key] ?? candidates.last {
            lastMatch[key] = i
            return exchanges[i]
        }
        return nil
    }

    /// Whether two Range values ask the same: equal text, or equal once parsed.
    static func sameRange(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a == b || canonicalRange(a) == canonicalRange(b)
        default: false
        }
    }

    /// The parsed, canonical form of a Range value (the text itself when it does not parse).
    static func canonicalRange(_ value: String) -> String {
        guard let r = try? RangeRequest.parse(value) else { return value }
        return r.unit.lowercased() + "=" + String(r.headerValue.drop { $0 != "=" }.dropFirst())
    }

    /// A text body for a request no exchange answers: what was asked, and what the capture has.
    func notFoundText(for request: FixtureRequest) -> String {
        var s = "rangetap serve --faithful: the capture has no exchange for \(request.summary)\n"
        s += "(requests are matched by method, path with query, and Range value)\n\n"
        if exchanges.isEmpty {
            s += "The capture holds no exchanges.\n"
            return s
        }
        s += "The capture has \(exchanges.count) exchange\(exchanges.count == 1 ? "" : "s"):\n"
        for e in exchanges.prefix(200) { s += "  \(e.summary)\n" }
        if exchanges.count > 200 { s += "  … and \(exchanges.count - 200) more\n" }
        return s
    }
}
