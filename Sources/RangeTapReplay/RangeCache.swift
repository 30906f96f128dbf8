import Foundation

/// What a cache is told about a resource when a response head for it arrives.
public struct ResourceInfo: Sendable, Equatable, Codable {
    /// The resource's URL (the cache key).
    public var url: String
    /// Complete length, when the response said it.
    public var length: Int64?
    /// Content-Type, as sent.
    public var contentType: String?
    /// Whether the server answered a range with 206.
    public var supportsRanges: Bool

    /// Creates the info.
    public init(url: String, length: Int64?, contentType: String?, supportsRanges: Bool) {
        self.url = url
        self.length = length
        self.contentType = contentType
        self.supportsRanges = supportsRanges
    }
}

/// A range cache under test: the replayer feeds it what a player received and asks it for
/// ranges back. Implementations are used from one thread at a time.
public protocol RangeCache: AnyObject {
    /// A name for reports.
    var name: String { get }
    /// Resources evicted (or entries, for caches that evict parts of resources) so far.
    var evictions: Int { get }
    /// Resources the cache refused to keep (all of them, or a part) because that alone would
    /// exceed its capacity. The replay report names them.
    var oversized: Set<String> { get }
    /// Where the cache files a response's body: at the offset the response states, or at the
    /// start of the range that was asked for. The replayer hands ``store(_:at:resource:exchange:)``
    /// the offsets this implies.
    var placement: ChunkPlacement { get }
    /// A response head for `info.url` arrived (may be called again for later exchanges).
    func resourceInfo(_ info: ResourceInfo) throws
    /// Body bytes of exchange `exchange` arrived, for resource offset `offset`.
    func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws
    /// Exchange `exchange` ended: `complete` when its response ended normally, false when the
    /// player cancelled it or it failed.
    func exchangeEnded(resource: String, exchange: Int, complete: Bool) throws
    /// The bytes the cache holds from `range.lowerBound` on, up to `range.upperBound`: all of
    /// them, a prefix, or none (empty).
    func read(resource: String, range: Range<Int64>) throws -> Data
}

extension RangeCache {
    /// None: a cache that does not say refuses nothing.
    public var oversized: Set<String> { [] }
    /// At the offset the response states, as a correct cache does.
    public var placement: ChunkPlacement { .response }
}
