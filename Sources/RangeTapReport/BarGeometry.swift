import RangeTapCore

/// Where one exchange's bar goes in resource coordinates: the byte offset reached at each
/// chunk arrival, and the span its Range asked for.
struct BarGeometry: Sendable {
    /// A point of the bar: at `t`, the body had reached resource offset `offset`. Offsets
    /// saturate at `Int64.max` (a hostile `Content-Range` start plus the bytes received).
    struct Point: Sendable, Equatable {
        /// Capture time (ns).
        var t: CaptureTime
        /// Resource offset reached (exclusive end of the bytes received so far).
        var offset: Int64
    }

    /// The resource offset of the first body byte, when it can be placed.
    let base: Int64?
    /// The bar: where the first chunk began, then the offset reached after each chunk.
    let points: [Point]
    /// The single range the request asked for, if it asked for one.
    let askedSpec: RangeSpec?

    /// Geometry of `e`. Chunks without a resource offset (multipart bodies) are placed after
    /// the base at their body offset; when chunks were not kept, the first and last chunk
    /// times and the span received make a straight bar.
    init(_ e: CaptureAnalysis.Exchange) {
        let r = e.record
        askedSpec = r.requestRange.flatMap { try? RangeRequest.parse($0) }.flatMap {
            $0.isBytes && $0.specs.count == 1 ? $0.specs[0] : nil
        }
        let base = r.chunks.first?.resourceOffset ?? e.resourceSpan?.lowerBound ?? askedSpec?.knownFirst
        self.base = base
        var points: [Point] = []
        if let first = r.chunks.first {
            points.reserveCapacity(r.chunks.count + 1)
            points.append(Point(t: first.t, offset: first.resourceOffset ?? (base ?? 0).addingSaturating(first.offset)))
            for c in r.chunks {
                let start = c.resourceOffset ?? (base ?? 0).addingSaturating(c.offset)
                points.append(Point(t: c.t, offset: start.addingSaturating(Int64(c.size))))
            }
        } else if r.chunkCount > 0, let base, let firstAt = r.firstChunkAt, let lastAt = r.lastChunkAt {
            points = [
                Point(t: firstAt, offset: base), Point(t: lastAt, offset: base.addingSaturating(r.bytesSent)),
            ]
        }
        self.points = points
    }

    /// The offset the bar had reached at `t` (the last point at or before it); nil before the
    /// first chunk or without points.
    func offset(at t: CaptureTime) -> Int64? {
        points.last { $0.t <= t }?.offset
    }

    /// The highest offset the bar reaches.
    var highest: Int64 { points.map(\.offset).max() ?? base ?? 0 }

    /// The bytes the Range asked for, resolved against `length` when it is known.
    func asked(length: Int64?) -> Range<Int64>? {
        guard let spec = askedSpec else { return nil }
        if let length {
            guard let r = spec.resolved(length: length) else { return nil }
            return r.first..<r.upperBound
        }
        switch spec {
        case .closed(let first, let last): return first..<last.addingSaturating(1)
        case .from, .suffix: return nil
        }
    }

    /// Thins pixel points: drops a point within half a pixel of the last one kept (both axes),
    /// always keeps the first and the last, then keeps every k-th point if more than `cap` remain.
    static func thin(_ points: [(Double, Double)], cap: Int) -> [(Double, Double)] {
        guard points.count > 2 else { return points }
        var kept: [(Double, Double)] = [points[0]]
        kept.reserveCapacity(min(points.count, cap * 2))
        for p in points.dropFirst().dropLast() {
            let last = kept[kept.count - 1]
            if abs(p.0 - last.0) >= 0.5 || abs(p.1 - last.1) >= 0.5 { kept.append(p) }
        }
        kept.append(points[points.count - 1])
        guard kept.count > cap, cap >= 2 else { return kept }
        var sampled: [(Double, Double)] = []
        sampled.reserveCapacity(cap)
        let step = Double(kept.count - 1) / Double(cap - 1)
        for i in 0..<cap {
            sampled.append(kept[min(kept.count - 1, Int((Double(i) * step).rounded()))])
        }
        return sampled
    }
}
