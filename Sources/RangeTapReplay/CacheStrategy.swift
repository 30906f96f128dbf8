/// The built-in cache strategies, by the name `--cache` takes.
public enum CacheStrategy: String, Sendable, CaseIterable {
    /// ``PrefixCache``.
    case prefix
    /// ``WholeFileCache``.
    case whole
    /// ``FragmentCache``.
    case fragments
    /// ``SparseCache``.
    case sparse

    /// A fresh cache of this strategy in `directory`.
    public func make(directory: String, capacity: Int64) throws -> any RangeCache {
        switch self {
        case .prefix: try PrefixCache(directory: directory, capacity: capacity)
        case .whole: try WholeFileCache(directory: directory, capacity: capacity)
        case .fragments: try FragmentCache(directory: directory, capacity: capacity)
        case .sparse: try SparseCache(directory: directory, capacity: capacity)
        }
    }
}
