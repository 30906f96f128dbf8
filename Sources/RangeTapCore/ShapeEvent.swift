/// The shaping of the client's link (`record --shape`, `--shape-trace`, `rangetap shape`) at
/// the start of a capture and at each change.
public struct ShapeEvent: Sendable, Equatable {
    /// When it took effect.
    public var t: CaptureTime
    /// The specification in force, normalised (`rate=2mbit,latency=80ms,scope=link`); `off`
    /// when shaping was turned off.
    public var spec: String
    /// The trace file driving the rate, if any (its path as given).
    public var trace: String?

    /// Creates the event.
    public init(t: CaptureTime, spec: String, trace: String? = nil) {
        self.t = t
        self.spec = spec
        self.trace = trace
    }
}
