/// The `Content-Length` field (RFC 9110 §8.6): one non-negative decimal number.
public enum ContentLength {
    /// The length in a field value, or nil when it is not 1 to 19 ASCII digits that fit in an
    /// Int64 (`Int64("-5")` and `Int64("+5")` would accept what HTTP does not).
    public static func parse(_ value: String) -> Int64? {
        parseDecimal(value.trimmingHTTPWhitespace())
    }
}
