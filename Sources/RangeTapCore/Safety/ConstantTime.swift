/// Comparing secrets (tokens, credentials) without leaking where they differ through the time
/// the comparison takes.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; the time depends on their lengths only.
    public static func equal(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
