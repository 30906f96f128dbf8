import RangeTapCore

/// What a `--fault` rule does to a matching exchange, on the way to the client.
public enum FaultAction: Sendable, Equatable {
    /// `status=503`: answer with this status (100...599) instead of the origin's.
    case status(Int)
    /// `reset-after=BYTES`: reset the client's connection after this many body bytes.
    case resetAfter(Int64)
    /// `stall-after=BYTES,for=DURATION`: stop sending after this many body bytes for the duration
    /// (ns), then go on.
    case stallAfter(Int64, forNs: Int64)
    /// `delay-head=DURATION`: hold the response head back this long (ns).
    case delayHead(Int64)
    /// `ignore-range`: answer a range request with the whole body, as a server that ignores
    /// `Range` does.
    case ignoreRange
    /// `off-by-one`: the response's byte range is off by one byte (the classic inclusive-end
    /// mistake).
    case offByOne
    /// `drop-header=NAME`: remove this header field (a valid token, compared case-insensitively).
    case dropHeader(String)
    /// `header-case=lower|upper|mixed`: rewrite the case of the header field names.
    case headerCase(HeaderCaseStyle)
    /// `truncate-after=BYTES`: end the body after this many bytes, short of what the head promised.
    case truncateAfter(Int64)

    /// The action's key as in the rule: `status`, `reset-after`, `stall-after`, …
    public var name: String {
        switch self {
        case .status: "status"
        case .resetAfter: "reset-after"
        case .stallAfter: "stall-after"
        case .delayHead: "delay-head"
        case .ignoreRange: "ignore-range"
        case .offByOne: "off-by-one"
        case .dropHeader: "drop-header"
        case .headerCase: "header-case"
        case .truncateAfter: "truncate-after"
        }
    }

    /// The action keys of the rule syntax, in the order messages list them (`for` goes with
    /// `stall-after`).
    static let actionKeys = [
        "status", "reset-after", "stall-after", "for", "delay-head", "ignore-range", "off-by-one", "drop-header",
        "header-case", "truncate-after",
    ]

    /// The keys written alone, without `=`.
    static let flagKeys: Set<String> = ["ignore-range", "off-by-one"]

    /// The action keys as messages show them: `status=`, …, `ignore-range`.
    static var keys: [String] {
        actionKeys.filter { $0 != "for" }.map { flagKeys.contains($0) ? $0 : $0 + "=" }
    }
}
