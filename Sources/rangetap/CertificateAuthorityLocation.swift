import RangeTapTLS

/// Where `record` and `ca` find the local CA when `--ca-dir` is not given.
enum CertificateAuthorityLocation {
    /// `~/.rangetap`.
    static var directory: String { CertificateAuthority.defaultDirectory }
}
