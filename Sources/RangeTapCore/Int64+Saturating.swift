extension Int64 {
    /// `self + other`, or `Int64.max` / `Int64.min` where the true sum does not fit.
    ///
    /// Offsets and lengths come from captures and from origins (a `Content-Range` may carry
    /// any 19-digit number); sums of them must never trap.
    public func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, or `Int64.max` / `Int64.min` where the true difference does not fit.
    public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }

    /// `self + other`, or nil where the sum does not fit.
    public func addingChecked(_ other: Int64) -> Int64? {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? nil : sum
    }
}

extension Sequence where Element == Int64 {
    /// The sum of the elements, `Int64.max` when it does not fit (elements are expected non-negative).
    public func saturatingSum() -> Int64 {
        reduce(0) { $0.addingSaturating($1) }
    }
}
