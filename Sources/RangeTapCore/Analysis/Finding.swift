/// Something an analysis noticed, with a stable ``code`` and the raw evidence.
///
/// A finding about an exchange into which a `--fault` rule injected something is marked
/// ``injected``: it is the user's doing, not the origin's (``rules`` names the rules).
public struct Finding: Sendable, Equatable {
    /// How much it matters.
    public enum Severity: String, Sendable, Codable, Comparable, CaseIterable {
        /// Worth knowing.
        case info
        /// A deviation that clients mostly survive, or a costly pattern.
        case warn
        /// A client or cache will break, or fetch far more than it asked.
        case error

        private var rank: Int { self == .info ? 0 : self == .warn ? 1 : 2 }
        public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
    }

    /// Stable identifier (see `docs/inspect-json.md` for the list).
    public var code: String
    /// Severity.
    public var severity: Severity
    /// One sentence for a person.
    public var message: String
    /// The raw header line(s) or the numbers it is based on.
    public var evidence: [String]
    /// The exchange it is about, if any.
    public var exchange: Int?
    /// The `--fault` rules (as the user wrote them) injected into the exchange it is about; nil
    /// when no fault was injected there.
    public var rules: [String]?

    /// Whether a `--fault` rule was injected into the exchange this finding is about, so that it
    /// says nothing against the origin (counted apart in the summary).
    public var injected: Bool { rules != nil }

    /// Creates a finding; `severity` overrides the code's usual one where the size of the
    /// problem decides (a 2-byte refetch is worth knowing, a 2 MB one costs).
    public init(
        _ code: FindingCode, _ message: String, evidence: [String] = [], exchange: Int? = nil, severity: Severity? = nil
    ) {
        self.code = code.rawValue
        self.severity = severity ?? code.severity
        self.message = message
        self.evidence = evidence
        self.exchange = exchange
    }
}

/// Every finding rangetap reports. The raw value is the stable `code` in JSON.
public enum FindingCode: String, Sendable, CaseIterable {
    // Header spelling.
    case headerCase = "header-case"
    case headerDuplicateCase = "header-duplicate-case"
    case headerConflict = "header-conflict"
    case bareLF = "bare-lf"
    case headerSpaceBeforeColon = "header-space-before-colon"
    /// Responses from an origin came over HTTP/2, where names are lower-case by definition: the
    /// spelling HTTP/1.1 clients of that origin see is not in the capture (once per origin).
    case http2HeaderCaseUnknown = "h2-header-case-unknown"
    // Server range handling.
    case rangeIgnored = "range-ignored"
    case partialWithoutContentRange = "206-without-content-range"
    case contentRangeMismatch = "content-range-mismatch"
    case contentRangeInvalid = "content-range-invalid"
    case contentLengthMismatch = "content-length-mismatch"
    case truncated = "truncated"
    case unsatisfiableWithoutLength = "416-without-length"
    case multipart = "multipart-byteranges"
    case multipartPartInvalid = "multipart-part-invalid"
    case acceptRangesMissing = "accept-ranges-missing"
    // Client behaviour.
    case inclusiveEndOffByOne = "inclusive-end-off-by-one"
    case refetched = "refetched"
    case rangeBeyondLength = "range-beyond-length"
    case earlyCancel = "early-cancel"
    case seek = "seek"
    case cancelled = "cancelled"
    // Connections.
    case connectionClose = "connection-close"
    case closedMidResponse = "closed-mid-response"
    case http10 = "http10-response"
    case upstreamError = "upstream-error"
    case badRequest = "bad-request"
    /// A client refused the certificate rangetap minted for an intercepted host.
    case tlsClientRejected = "tls-client-rejected"
    /// The TLS handshake of an intercepted tunnel failed for another reason.
    case tlsFailed = "tls-failed"
    /// rangetap paused reading the origin because the client read slowly (not the origin's doing).
    case proxyPaused = "proxy-paused"
    // Media (from the playlists, manifests and MP4 indexes in the capture, see docs/media.md).
    /// A segment (or init segment, or index) fetched again after an earlier fetch got it whole.
    case segmentRefetched = "segment-refetched"
    /// A media segment the client gave up on part-way.
    case segmentCancelled = "segment-cancelled"
    /// The player moved to another rendition of the same kind (up or down).
    case renditionSwitch = "rendition-switch"
    /// Segments fetched out of their order: a seek, or a retry of an earlier one.
    case segmentOutOfOrder = "segment-out-of-order"
    /// How far ahead of the (estimated) playhead the player buffered.
    case bufferAhead = "buffer-ahead"
    /// A playlist or MPD in the capture that rangetap could not read.
    case mediaManifestInvalid = "media-manifest-invalid"
    /// An origin advertised HTTP/3 (`Alt-Svc: h3`): without the proxy, a client that speaks QUIC
    /// would have used it, so the capture shows its TCP fallback (once per origin).
    case altSvcHTTP3 = "alt-svc-h3"
    // The player's own account (CMCD, CTA-5004; see docs/cmcd.md).
    /// A request's CMCD breaks CTA-5004: the raw value is quoted, the keys that could be read are kept.
    case cmcdInvalid = "cmcd-invalid"
    /// The throughput the player says it measured (`mtp`) is far from the rate its recent
    /// requests reached it at.
    case cmcdThroughputDiffers = "cmcd-throughput-differs"
    /// The player reported buffer starvation (`bs`) while bytes were arriving for it.
    case cmcdStarvedWhileArriving = "cmcd-starved-while-arriving"
    /// The player announced its next object or range (`nor`, `nrr`), went on requesting, and
    /// never fetched it.
    case cmcdNextNotFetched = "cmcd-next-not-fetched"

    /// The severity every finding with this code has.
    public var severity: Finding.Severity {
        switch self {
        case .headerConflict, .headerSpaceBeforeColon, .rangeIgnored, .partialWithoutContentRange,
            .contentRangeMismatch, .contentRangeInvalid,
            .contentLengthMismatch, .truncated, .multipartPartInvalid, .closedMidResponse, .upstreamError:
            .error
        case .headerCase, .headerDuplicateCase, .bareLF, .unsatisfiableWithoutLength, .acceptRangesMissing,
            .inclusiveEndOffByOne, .refetched, .rangeBeyondLength, .connectionClose, .badRequest, .tlsClientRejected,
            .tlsFailed,
            .segmentRefetched, .mediaManifestInvalid, .cmcdInvalid:
            .warn
        case .multipart, .earlyCancel, .seek, .cancelled, .http10, .proxyPaused, .http2HeaderCaseUnknown,
            .segmentCancelled, .renditionSwitch, .segmentOutOfOrder, .bufferAhead, .altSvcHTTP3, .cmcdThroughputDiffers,
            .cmcdStarvedWhileArriving, .cmcdNextNotFetched:
            .info
        }
    }
}
