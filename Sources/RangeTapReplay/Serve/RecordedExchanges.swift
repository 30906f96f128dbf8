import RangeTapCore

/// The exchanges of a capture and which one answers an incoming request.
struct RecordedExchanges: Sendable {
    /// Exchanges in recorded (request) order.
    private(set) var exchanges: [RecordedExchange] = []
    private var used: Set<Int> = []
    private var lastMatch: [String: Int] = [:]
    /// Whether the host takes part in matching.
    var matching: FixtureServer.Matching = .hostAndPath
    /// The distinct origins of the exchanges.
    private var recordedOrigins: Set<RequestOrigin> = []

    /// Reads every exchange of `reader`'s capture (CONNECT tunnels left out).
    init(reader: CaptureReader, matching: FixtureServer.Matching = .hostAndPath) throws {
        self.matching = matching
        var byID: [Int: Int] = [:]
        try reader.forEachEvent { event in
            switch event {
            case .request(let r):
                guard r.method != "CONNECT" else { return }
                byID[r.exchange] = exchanges.count
                let url = r.url ?? r.target
                exchanges.append(
                    RecordedExchange(
                        id: r.exchange, method: r.method, path: RequestPath.originForm(url),
                        range: r.headers.first(named: "Range"), origin: RequestOrigin(url: url), requestAt: r.t))
            case .interim(let h):
                if let i = byID[h.exchange] {
                    exchanges[i].interims.append(.init(t: h.t, status: h.status, lines: h.lines))
                }
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
                if let ex = e.exchange, let i = byID[ex] {
                    exchanges[i].ending = .error(t: e.t, status: e.status, message: e.message)
                }
            default:
                break
            }
        }
        recordedOrigins = Set(exchanges.compactMap(\.origin))
    }

    /// An index over given exchanges (tests).
    init(exchanges: [RecordedExchange], matching: FixtureServer.Matching = .hostAndPath) {
        self.exchanges = exchanges
        self.matching = matching
        recordedOrigins = Set(exchanges.compactMap(\.origin))
    }

    /// The recorded origins a request for `origin` may be answered from, or nil for any.
    ///
    /// With ``FixtureServer/Matching/hostAndPath``: the origins with the same host and port (a
    /// request without a port matches 80 and 443); else those with the same host on another port
    /// (a client that reached serve on its own port, `Host: media.test:8090`, means the
    /// recorded `media.test:443`); else, when the capture never saw that host (the client named
    /// serve itself, `127.0.0.1:8090`), any origin.
    func origins(answering origin: RequestOrigin?) -> Set<RequestOrigin>? {
        guard matching == .hostAndPath, let origin else { return nil }
        let recorded = recordedOrigins
        let ports = origin.port.map { [$0] } ?? [80, 443]
        let samePort = recorded.filter { r in r.host == origin.host && ports.contains(r.port ?? 80) }
        if !samePort.isEmpty { return samePort }
        let sameHost = recorded.filter { r in r.host == origin.host }
        return sameHost.isEmpty ? nil : sameHost
    }

    /// The exchange that answers `method path` with `range` for `origin` (see
    /// ``origins(answering:)``): the first not yet used in recorded order, else the one used last
    /// for the same request. Marks it used.
    mutating func match(method: String, origin: RequestOrigin? = nil, path: String, range: String?) -> RecordedExchange?
    {
        let allowed = origins(answering: origin)
        let key =
            "\(allowed.map { $0.map(\.description).sorted().joined(separator: ",") } ?? "*") \(method) \(path) \(range.map(Self.canonicalRange) ?? "-")"
        let candidates = exchanges.indices.filter { i in
            let e = exchanges[i]
            return e.method == method && e.path == path && Self.sameRange(e.range, range)
                && (allowed == nil || e.origin.map { allowed!.contains($0) } == true)
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
        var s = "rangetap serve --faithful: the capture has no exchange for \(request.summary)"
        switch (matching, origins(answering: request.origin)) {
        case (.hostAndPath, let allowed?):
            s += " on \(allowed.map(\.description).sorted().joined(separator: " or "))\n"
            s +=
                "(requests are matched by host, method, path with query, and Range value; --match path ignores the host)\n\n"
        default:
            s += "\n(requests are matched by method, path with query, and Range value)\n\n"
        }
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
