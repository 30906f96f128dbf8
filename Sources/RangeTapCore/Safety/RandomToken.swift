/// A run's secrets (the control token, the web view's token): 128 random bits from the system's
/// generator, as 32 hex digits.
public enum RandomToken {
    /// A new token.
    public static func hex128() -> String {
        var g = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<32).map { _ in digits[Int.random(in: 0..<16, using: &g)] })
    }
}
