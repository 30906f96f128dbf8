import RangeTapCore

/// How the upstream transfer ended, as the upstream thread saw it.
struct UpstreamOutcome: Equatable {
    /// When libcurl reported the end.
    var t: CaptureTime
    /// Body bytes received (and recorded).
    var received: Int64
    /// Trailer lines as the capture stores them (secrets redacted unless kept).
    var trailers: [HeaderLine] = []
    /// The `error` event to record when the transfer failed and the client is still there
    /// (nil for an end, or for a transfer rangetap aborted because the client left).
    var failure: ErrorEvent?
}
