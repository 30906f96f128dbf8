import Foundation
import RangeTapCore

/// Drives a capture through a ``RangeCache`` and proves what it serves back.
///
/// 1. First playback: every response head and every chunk a player *received* (up to the bytes
///    delivered, for exchanges it cut short) is fed to the cache at its resource offset, in
///    recorded order; each exchange's end or cancel is reported.
/// 2. Second playback: the same requests again. For each, the cache is asked first; what it
///    lacks comes from the "network" (the capture) and is stored too, as a real cache would.
/// 3. Every byte the cache served is compared with the capture's.
public final class Replayer {
    /// The capture.
    public let path: String
    private let reader: CaptureReader
    private let analysis: CaptureAnalysis
    /// Largest piece read or compared at once.
    private let piece: Int64 = 1 << 20

    /// Whether the last line of `events.jsonl` was incomplete when it was last read (a capture
    /// cut off or still being written): the replay covers the events before it.
    public var truncatedTail: Bool { reader.truncatedTail }

    /// Opens a capture for replay.
    public init(path: String) throws {
        self.path = path
        reader = try CaptureReader(path: path)
        guard reader.header.bodies else { throw ReplayError.noBodies(path) }
        analysis = try CaptureAnalysis.analyze(path: path)
    }

    /// The requests of the second playback: exchanges whose bytes the client got, with where they lie.
    var playbackRequests: [(exchange: Int, resource: String, span: Range<Int64>, complete: Bool)] {
        analysis.exchanges.compactMap { e in
            guard e.record.method == "GET", let span = e.resourceSpan, !span.isEmpty else { return nil }
            return (
                e.record.id, e.record.resource, span,
                e.record.outcome == .complete && e.record.bytesDelivered == nil
            )
        }
    }

    /// Replays into `cache`. A resource whose length or bytes lie beyond
    /// ``ResourceLimit/largestLength`` is left out with an error naming it.
    public func run(_ cache: any RangeCache) throws -> ReplayReport {
        var requests = playbackRequests
        guard !requests.isEmpty else { throw ReplayError.nothingToReplay(path) }
        let truth = CaptureTruth(reader: reader)
        var storedBy: [String: [(span: Range<Int64>, by: String)]] = [:]
        var errors: [String] = []
        // Resources too large to replay, with why.
        var tooLarge: [String: String] = [:]
        func refuse(_ url: String, _ why: String) {
            guard tooLarge[url] == nil else { return }
            tooLarge[url] = why
            errors.append("resource \(url) is too large to replay: \(why); its requests are left out")
        }

        // What each exchange delivered, and its resource.
        var limit: [Int: Int64] = [:]
        var resourceOf: [Int: String] = [:]
        var complete: [Int: Bool] = [:]
        // The head as the client got it, where a fault rewrote it; where this cache files each
        // exchange's body, where that is not the origin's Content-Range; who stored what.
        var clientHead: [Int: (status: Int?, lines: [HeaderLine])] = [:]
        var bodyStart: [Int: Int64] = [:]
        var storer: [Int: String] = [:]
        for e in analysis.exchanges {
            let r = e.record
            resourceOf[r.id] = r.resource
            limit[r.id] = r.bytesDelivered.map { min($0, r.bytesReceived) } ?? r.bytesReceived
            complete[r.id] = r.outcome == .complete && r.bytesDelivered == nil
            if r.clientHeadRewritten { clientHead[r.id] = (r.clientStatus, r.clientResponseLines) }
            bodyStart[r.id] = Self.bodyStart(r, placement: cache.placement)
            storer[r.id] =
                "playback 1, exchange \(r.id)"
                + (r.faultRules.map { " (injected fault: \($0.joined(separator: "; ")))" } ?? "")
        }

        // 1. First playback.
        var firstPlaybackFailed = false
        do {
            var fed: [Int: Int64] = [:]
            try reader.forEachEvent { event in
                switch event {
                case .response(let r):
                    guard let url = resourceOf[r.exchange], tooLarge[url] == nil else { return }
                    // The cache sees the head the player got, which a fault may have rewritten.
                    let (status, lines) = clientHead[r.exchange] ?? (r.status, r.lines)
                    let length =
                        lines.first(named: "Content-Range").flatMap { try? ContentRange.parse($0) }?.completeLength
                        ?? (status == 200 ? lines.first(named: "Content-Length").flatMap(ContentLength.parse) : nil)
                    if let length, let why = ResourceLimit.problem(length: length) { return refuse(url, why) }
                    try cache.resourceInfo(
                        ResourceInfo(
                            url: url, length: length, contentType: lines.first(named: "Content-Type"),
                            supportsRanges: status == 206))
                case .chunk(let c):
                    guard let url = resourceOf[c.exchange], let truthAt = c.resourceOffset, tooLarge[url] == nil else {
                        return
                    }
                    // The truth is where the origin's bytes lie; the cache files them where its
                    // placement puts them, which differs for a Range ignored or a Content-Range shifted.
                    let at = bodyStart[c.exchange].map { $0.addingSaturating(c.offset) } ?? truthAt
                    if let why = ResourceLimit.problem(offset: max(at, truthAt), size: Int64(c.size)) {
                        return refuse(url, why)
                    }
                    truth.add(c, resource: url, resourceOffset: truthAt)
                    let already = fed[c.exchange, default: 0]
                    let allowed = min(Int64(c.size), (limit[c.exchange] ?? 0) - already)
                    guard allowed > 0 else { return }
                    var data = try reader.bytes(of: c)
                    if allowed < Int64(c.size) { data = data.prefix(Int(allowed)) }
                    try cache.store(data, at: at, resource: url, exchange: c.exchange)
                    storedBy[url, default: []].append(
                        (at..<(at + allowed), storer[c.exchange] ?? "playback 1, exchange \(c.exchange)"))
                    fed[c.exchange] = already + allowed
                case .end(let e):
                    if let url = resourceOf[e.exchange] {
                        try cache.exchangeEnded(
                            resource: url, exchange: e.exchange, complete: complete[e.exchange] ?? false)
                    }
                case .cancel(let e):
                    if let url = resourceOf[e.exchange] {
                        try cache.exchangeEnded(resource: url, exchange: e.exchange, complete: false)
                    }
                case .error(let e):
                    if let ex = e.exchange, let url = resourceOf[ex] {
                        try cache.exchangeEnded(resource: url, exchange: ex, complete: false)
                    }
                default:
                    break
                }
            }
        } catch {
            errors.append("first playback: \(error)")
            firstPlaybackFailed = true
        }
        truth.seal()
        requests.removeAll { tooLarge[$0.resource] != nil }

        // 2 and 3. Second playback, verified.
        var report = ReplayReport(
            cache: cache.name, verified: errors.isEmpty, mismatches: [], requests: requests.count, bytesRequested: 0,
            bytesFromCache: 0, bytesFromNetwork: 0, evictions: 0, errors: errors)
        if !firstPlaybackFailed {
            for request in requests {
                let (sum, overflow) = request.exchange.addingReportingOverflow(1_000_000)
                let replayID = overflow ? Int.max : sum
                report.bytesRequested = report.bytesRequested.addingSaturating(Int64(request.span.count))
                var position = request.span.lowerBound
                var fromCacheDone = false
                var mismatchFound = false
                do {
                    while position < request.span.upperBound {
                        let end = min(request.span.upperBound, position + piece)
                        if !fromCacheDone {
                            let cached = try cache.read(resource: request.resource, range: position..<end)
                            if cached.count > Int(end - position) {
                                throw ReplayError.externalCache(
                                    "read(\(position)..<\(end)) returned \(cached.count) bytes, more than asked")
                            }
                            if !cached.isEmpty {
                                let expected = try truth.bytes(
                                    request.resource, position..<(position + Int64(cached.count)))
                                if !mismatchFound, expected != cached, let i = Self.firstDifference(expected, cached) {
                                    mismatchFound = true
                                    let at = position + i
                                    report.mismatches.append(
                                        .init(
                                            resource: request.resource, offset: at,
                                            expected: Self.hex(expected, from: Int(i)),
                                            got: Self.hex(cached, from: Int(i)),
                                            exchange: request.exchange,
                                            storedBy: storedBy[request.resource]?.last { $0.span.contains(at) }?.by))
                                }
                                report.bytesFromCache += Int64(cached.count)
                                position += Int64(cached.count)
                            }
                            if position < end { fromCacheDone = true }
                            continue
                        }
                        let network = try truth.bytes(request.resource, position..<end)
                        try cache.store(network, at: position, resource: request.resource, exchange: replayID)
                        storedBy[request.resource, default: []].append(
                            (position..<end, "playback 2, exchange \(request.exchange)"))
                        report.bytesFromNetwork += Int64(network.count)
                        position = end
                    }
                    try cache.exchangeEnded(resource: request.resource, exchange: replayID, complete: request.complete)
                } catch {
                    report.errors.append("second playback, exchange \(request.exchange): \(error)")
                    break
                }
            }
        }
        report.evictions = cache.evictions
        report.oversized = cache.oversized.sorted()
        report.verified = report.mismatches.isEmpty && report.errors.isEmpty
        return report
    }

    /// Where body byte 0 of exchange `r` goes in a cache that files by `placement`, when that
    /// is not where the origin's `Content-Range` puts it (nil: the chunks' own resource offsets).
    ///
    /// A `.request` cache files a single `bytes=N-…` range at N whatever came back; otherwise
    /// (and for a `.response` cache) a head a fault rewrote decides: 0 for the `200` of an
    /// ignored Range, the client's `Content-Range` start for a shifted one.
    static func bodyStart(_ r: ExchangeRecord, placement: ChunkPlacement) -> Int64? {
        if placement == .request, let value = r.requestRange, let request = try? RangeRequest.parse(value),
            request.isBytes, request.specs.count == 1, let first = request.specs[0].knownFirst
        {
            return first
        }
        guard r.clientHeadRewritten || (placement == .request && r.requestRange != nil) else { return nil }
        switch r.clientStatus {
        case 200: return 0
        case 206:
            return r.clientResponseLines.first(named: "Content-Range").flatMap { try? ContentRange.parse($0) }?.range?
                .first
        default: return nil
        }
    }

    /// Index of the first differing byte (called only when the two differ; equality is a memcmp).
    static func firstDifference(_ a: Data, _ b: Data) -> Int64? {
        a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                let n = min(pa.count, pb.count)
                for i in 0..<n where pa[i] != pb[i] { return Int64(i) }
                return pa.count == pb.count ? nil : Int64(n)
            }
        }
    }

    static func hex(_ data: Data, from: Int) -> String {
        let start = data.startIndex + from
        return data[start..<min(data.endIndex, start + 16)].map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
