extension CaptureAnalysis {
    /// The totals of this analysis's exchanges, resources, connections and findings.
    func summarized() -> Summary {
        var s = Summary()
        s.requests = exchanges.count
        s.connections = connections.count
        s.maxRequestsPerConnection = connections.map(\.requests).max() ?? 0
        s.bytesFetched = resources.map(\.bytesFetched).saturatingSum()
        s.uniqueBytes = resources.map(\.uniqueBytes).saturatingSum()
        s.cancels = exchanges.filter { $0.record.outcome == .cancelled }.count
        s.errors = exchanges.filter { if case .failed = $0.record.outcome { true } else { false } }.count
        s.seeks = exchanges.flatMap(\.findings).filter { $0.code == FindingCode.seek.rawValue }.count
        for f in allFindings {
            if f.injected {
                s.injectedFindings[f.severity, default: 0] += 1
            } else {
                s.findings[f.severity, default: 0] += 1
            }
        }
        return s
    }

    /// The part of the analysis `filter` keeps: its exchanges (with their findings), the
    /// connections they used, the resources they fetched, and the findings not tied to one
    /// exchange that name one of those resources or hosts; the summary is recomputed over them.
    /// Findings were made over the whole capture (a seek is still a seek when the exchange
    /// before it is filtered out), and a resource's figures still count every exchange of it.
    public func filtered(_ filter: ExchangeFilter) -> CaptureAnalysis {
        guard !filter.isEmpty else { return self }
        var a = self
        a.exchanges = exchanges.filter { filter.matches($0.record) }
        let ids = Set(a.exchanges.map(\.record.id))
        let urls = Set(a.exchanges.map(\.record.resource))
        let connectionIDs = Set(a.exchanges.map(\.record.connection))
        a.connections = connections.filter { connectionIDs.contains($0.id) }
        a.resources = resources.filter { urls.contains($0.url) }
        a.findings = findings.filter { f in
            if let ex = f.exchange { return ids.contains(ex) }
            return f.evidence.contains { line in urls.contains { line.contains($0) } }
        }
        a.summary = a.summarized()
        return a
    }

    /// Whether a finding the user did not inject has at least `severity`: what
    /// `inspect --fail-on` exits 1 on.
    public func hasFindings(atLeast severity: Finding.Severity) -> Bool {
        summary.findings.contains { $0.key >= severity && $0.value > 0 }
    }
}
