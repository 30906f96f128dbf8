/// A set of byte offsets kept as sorted, disjoint, non-adjacent half-open spans.
public struct ByteRangeSet: Sendable, Equatable {
    /// The spans, sorted, as `lower..<upper`.
    public private(set) var spans: [Range<Int64>] = []

    /// An empty set.
    public init() {}

    /// Total bytes covered (`Int64.max` if that does not fit, which takes negative offsets).
    public var count: Int64 {
        spans.reduce(0) { $0.addingSaturating($1.upperBound.subtractingSaturating($1.lowerBound)) }
    }

    /// Bytes of `range` already in the set.
    public func overlap(with range: Range<Int64>) -> Int64 {
        guard !range.isEmpty else { return 0 }
        var total: Int64 = 0
        for s in spans where s.lowerBound < range.upperBound && range.lowerBound < s.upperBound {
            total = total.addingSaturating(
                min(s.upperBound, range.upperBound).subtractingSaturating(max(s.lowerBound, range.lowerBound)))
        }
        return total
    }

    /// Whether every byte of `range` is in the set.
    public func contains(_ range: Range<Int64>) -> Bool {
        range.isEmpty || spans.contains { $0.lowerBound <= range.lowerBound && range.upperBound <= $0.upperBound }
    }

    /// The length of the run starting at `offset` that the set covers (0 if `offset` is not in it).
    public func contiguousLength(from offset: Int64) -> Int64 {
        guard let s = spans.first(where: { $0.contains(offset) }) else { return 0 }
        return s.upperBound - offset
    }

    /// Adds `range`, merging with touching spans; returns how many of its bytes were already present.
    @discardableResult
    public mutating func insert(_ range: Range<Int64>) -> Int64 {
        guard !range.isEmpty else { return 0 }
        let already = overlap(with: range)
        var lower = range.lowerBound
        var upper = range.upperBound
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(spans.count + 1)
        var inserted = false
        for s in spans {
            if s.upperBound < lower {
                kept.append(s)
            } else if upper < s.lowerBound {
                if !inserted {
                    kept.append(lower..<upper)
                    inserted = true
                }
                kept.append(s)
            } else {
                lower = min(lower, s.lowerBound)
                upper = max(upper, s.upperBound)
            }
        }
        if !inserted { kept.append(lower..<upper) }
        spans = kept
        return already
    }

    /// Removes every byte of `range`.
    public mutating func remove(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var kept: [Range<Int64>] = []
        for s in spans {
            if s.upperBound <= range.lowerBound || range.upperBound <= s.lowerBound {
                kept.append(s)
                continue
            }
            if s.lowerBound < range.lowerBound { kept.append(s.lowerBound..<range.lowerBound) }
            if range.upperBound < s.upperBound { kept.append(range.upperBound..<s.upperBound) }
        }
        spans = kept
    }
}
