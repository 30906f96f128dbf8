#if canImport(Glibc)
import Glibc
#endif

/// Raises this process's soft `RLIMIT_NOFILE` to `needed` (the proxies under test run in it, and
/// the clients they start inherit it) and fails naming the limit when the hard limit is lower.
public func raiseDescriptorLimit(to needed: Int, for what: String) throws {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < rlim_t(needed) {
        limit.rlim_cur = min(rlim_t(needed), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    guard limit.rlim_cur >= rlim_t(needed) else {
        throw TestFailure("RLIMIT_NOFILE is \(limit.rlim_cur) (hard \(limit.rlim_max)); \(what) needs \(needed)")
    }
}
