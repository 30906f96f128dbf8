import RangeTapCore

/// One row of a rendering's exchange list: an exchange, or an HTTP/2 connection with its streams
/// gathered under it at the place of the connection's first stream.
enum ExchangeRow {
    case exchange(CaptureAnalysis.Exchange)
    /// `upstreamVersions`: the distinct upstream HTTP versions of its streams, sorted.
    case connection(id: Int, streams: [CaptureAnalysis.Exchange], upstreamVersions: [String])

    /// `exchanges` in capture order, HTTP/2 streams grouped by connection.
    static func rows(_ exchanges: [CaptureAnalysis.Exchange]) -> [ExchangeRow] {
        var streamsByConnection: [Int: [CaptureAnalysis.Exchange]] = [:]
        for e in exchanges where e.record.stream != nil {
            streamsByConnection[e.record.connection, default: []].append(e)
        }
        var grouped: Set<Int> = []
        var rows: [ExchangeRow] = []
        for e in exchanges {
            let r = e.record
            guard r.stream != nil else {
                rows.append(.exchange(e))
                continue
            }
            guard grouped.insert(r.connection).inserted, let streams = streamsByConnection[r.connection] else {
                continue
            }
            var upstream: [String] = []
            for s in streams { if let v = s.record.upstreamHTTPVersion, !upstream.contains(v) { upstream.append(v) } }
            rows.append(.connection(id: r.connection, streams: streams, upstreamVersions: upstream.sorted()))
        }
        return rows
    }
}
