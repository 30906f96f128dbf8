/// Replay could not run; the description says what to fix.
public struct ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case noBodies(String)
        case cacheIO(String)
        case unknownStrategy(String)
        case externalCache(String)
        case nothingToReplay(String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The capture has no body bytes to replay.
    public static func noBodies(_ path: String) -> Self { .init(.noBodies(path)) }
    /// The cache's files could not be read or written.
    public static func cacheIO(_ what: String) -> Self { .init(.cacheIO(what)) }
    /// `--cache` named no built-in strategy.
    public static func unknownStrategy(_ name: String) -> Self { .init(.unknownStrategy(name)) }
    /// An external cache crashed, hung or answered garbage.
    public static func externalCache(_ what: String) -> Self { .init(.externalCache(what)) }
    /// No exchange of the capture carried body bytes of a known resource offset.
    public static func nothingToReplay(_ path: String) -> Self { .init(.nothingToReplay(path)) }

    public var description: String {
        switch code {
        case .noBodies(let p):
            "\(p) was recorded with --no-bodies: replay needs the body bytes. Record again without --no-bodies."
        case .cacheIO(let w): "cache storage failed: \(w)"
        case .unknownStrategy(let n):
            "unknown cache strategy \"\(n)\": use prefix, whole, fragments or sparse, or --cache-cmd for your own"
        case .externalCache(let w): "the external cache failed: \(w)"
        case .nothingToReplay(let p): "\(p) has no GET exchanges with body bytes at known offsets: nothing to replay"
        }
    }
}
