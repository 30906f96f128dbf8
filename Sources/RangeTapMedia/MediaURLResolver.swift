import RangeTapCore

/// Resolves many references against one base, as ``MediaURL/resolve(_:against:)`` does, with a
/// fast path for the common plain relative path (`seg/00042.m4s`): Foundation resolves the
/// base's directory once, and plain paths are appended to it.
struct MediaURLResolver {
    /// The URL references are resolved against.
    let base: String
    /// `base` resolved up to and including its last `/`, when it has one.
    private let directory: String?

    /// A resolver for references in the document at `base`.
    init(base: String) {
        self.base = base
        let probe = MediaURL.resolve("p", against: base)
        if probe.hasSuffix("/p"), probe.contains("://") {
            directory = String(probe.dropLast())
        } else {
            directory = nil
        }
    }

    /// `reference` resolved against ``base``, without fragment.
    func resolve(_ reference: String) -> String {
        if let directory, Self.isPlainRelativePath(reference) { return directory + reference }
        return MediaURL.resolve(reference, against: base)
    }

    /// True for a relative path of unreserved characters and `/` without `.` or `..`
    /// segments, which RFC 3986 resolution merely appends to the base's directory.
    static func isPlainRelativePath(_ reference: String) -> Bool {
        guard let first = reference.utf8.first, first != UInt8(ascii: "/") else { return false }
        for byte in reference.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "."), UInt8(ascii: "/"):
                continue
            default:
                return false
            }
        }
        for segment in reference.split(separator: "/", omittingEmptySubsequences: false)
        where segment == "." || segment == ".." {
            return false
        }
        return true
    }
}
