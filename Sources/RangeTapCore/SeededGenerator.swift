/// SplitMix64: a tiny, stable pseudo-random sequence, so a `--seed` gives the same positions on
/// every platform and Swift version (the standard library's `random(in:using:)` promises neither):
/// `play --seed` positions and a shaped link's jitter.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A sequence determined by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (multiply-shift; `bound` must be positive).
    public mutating func next(below bound: Int64) -> Int64 {
        precondition(bound > 0, "bound must be positive")
        return Int64(next().multipliedFullWidth(by: UInt64(bound)).high)
    }
}
