import NIOCore
import RangeTapCore

/// What an exchange's upstream half tells its driver, in order: interim heads, one final head,
/// body bytes, then one `end` or `failed`. ``ExchangeStateMachine`` holds the upstream half to
/// that order (anything else is a programming error).
enum UpstreamMessage {
    /// An interim (1xx) head, raw lines.
    case interim([HeaderLine])
    /// The final head, raw lines as the origin's response delivered them.
    case head([HeaderLine])
    /// Body bytes, in the buffer that goes to the client.
    case body(ByteBuffer)
    /// The body ended; trailer lines, if the origin sent any (as sent, for the client), and
    /// the outcome for the capture.
    case end(trailers: [HeaderLine], UpstreamOutcome)
    /// The transfer failed or was aborted; `timedOut` when the upstream went silent (504
    /// rather than 502).
    case failed(String, timedOut: Bool, UpstreamOutcome)
}
