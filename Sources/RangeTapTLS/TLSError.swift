/// What went wrong creating, loading or using rangetap's local certificate authority.
public enum TLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The CA directory cannot be created or written.
    case directory(String, String)
    /// A CA file exists but cannot be read or parsed.
    case unreadable(String, String)
    /// The CA key file is readable by others than its owner.
    case keyTooOpen(String, mode: String)
    /// A leaf certificate could not be made.
    case minting(host: String, String)
    /// The TLS key log file cannot be opened.
    case keyLog(String, String)

    public var description: String {
        switch self {
        case .directory(let path, let why): return "cannot use CA directory \(path): \(why)"
        case .unreadable(let path, let why):
            return "cannot read \(path): \(why); remove it and run `rangetap ca init` to make a new CA"
        case .keyTooOpen(let path, let mode):
            return "CA key \(path) has mode \(mode); it must be readable by its owner only (chmod 600 \(path))"
        case .minting(let host, let why): return "cannot make a certificate for \(host): \(why)"
        case .keyLog(let path, let why):
            return "cannot open the TLS key log \(path): \(why); check that its directory exists and is writable"
        }
    }
}
