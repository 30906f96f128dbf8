import RangeTapCore

/// The next request a ``PlayerScript`` wants sent, and when to hang up on it.
public struct PlannedRequest: Sendable, Hashable {
    /// Why a player sends this request.
    public enum Purpose: String, Sendable, Hashable, Codable {
        /// `bytes=0-1`: learn the length, type and whether ranges work.
        case probe
        /// The first open-ended request from the start.
        case open
        /// Playback went on: an open-ended request from where the last one was cancelled.
        case resume
        /// The user seeked: the previous request is gone, a new one starts there.
        case seek
        /// The end of the file (where an MP4 may keep its index).
        case tail
        /// Everything, start to end.
        case linear
    }

    /// Why it is sent.
    public var purpose: Purpose
    /// The `Range` header value to send.
    public var range: RangeRequest
    /// Cancel the transfer once this many body bytes were read, unless the body ends first;
    /// `nil` reads to the end. Also what keeps a server that ignores `Range` from sending a
    /// whole large file.
    public var readLimit: Int64?

    /// Creates a planned request.
    public init(purpose: Purpose, range: RangeRequest, readLimit: Int64?) {
        self.purpose = purpose
        self.range = range
        self.readLimit = readLimit
    }

    /// A request for `first-` (open-ended), or `first-last` when `last` is given.
    public init(purpose: Purpose, first: Int64, last: Int64? = nil, readLimit: Int64?) {
        let spec: RangeSpec = last.map { .closed(first: first, last: $0) } ?? .from(first: first)
        self.init(purpose: purpose, range: RangeRequest(specs: [spec]), readLimit: readLimit)
    }

    /// The `Range` header value, such as `bytes=0-1`.
    public var rangeHeader: String { range.headerValue }

    /// Offset of the first byte asked for.
    public var first: Int64 { range.specs.first?.knownFirst ?? 0 }
}
