/// A fault the user asked for (`record --fault`) was applied to one exchange.
///
/// The other events of the exchange keep what the origin sent; this one says what rangetap
/// changed on the way to the client, so analysis can tell an injected problem from the origin's.
public struct FaultEvent: Sendable, Equatable {
    /// When the fault was applied.
    public var t: CaptureTime
    /// Exchange id.
    public var exchange: Int
    /// The rule as the user wrote it.
    public var rule: String
    /// The action applied, as named in the rule (`status`, `reset-after`, `header-case`, …).
    public var action: String
    /// What was changed, in words (for the live line and reports).
    public var detail: String
    /// The response head as the client got it (status line and field lines, no blank line),
    /// when the action changed the head; nil otherwise.
    public var lines: [HeaderLine]?

    /// Creates the event.
    public init(t: CaptureTime, exchange: Int, rule: String, action: String, detail: String, lines: [HeaderLine]? = nil)
    {
        self.t = t
        self.exchange = exchange
        self.rule = rule
        self.action = action
        self.detail = detail
        self.lines = lines
    }
}
