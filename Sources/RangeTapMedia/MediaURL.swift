import Foundation
import RangeTapCore

/// URL handling shared by the playlist and manifest parsers.
enum MediaURL {
    /// `reference` resolved against `base` (RFC 3986, via Foundation), without fragment.
    /// A reference Foundation cannot read is returned as written, fragment removed.
    static func resolve(_ reference: String, against base: String) -> String {
        let resolved: String
        if let baseURL = URL(string: base), let url = URL(string: reference, relativeTo: baseURL) {
            resolved = url.absoluteString
        } else {
            resolved = reference
        }
        return dropFragment(resolved)
    }

    /// `url` without its `#fragment`.
    static func dropFragment(_ url: String) -> String {
        guard let hash = url.firstIndex(of: "#") else { return url }
        return String(url[..<hash])
    }

    /// The last path component of `url`, without query or fragment; the whole string when it
    /// has no path.
    static func lastPathComponent(_ url: String) -> String {
        var path = Substring(url)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        return parts.last.map(String.init) ?? url
    }
}
