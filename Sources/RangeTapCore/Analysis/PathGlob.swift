/// The `path=` patterns of fault rules: an exact path or a glob with `*` (any run of characters,
/// `/` included) and `?` (any one character).
///
/// A pattern without `/` is matched against the last segment of the path (`*.ts` matches
/// `/a/b/seg1.ts`, `index.m3u8` matches `/live/index.m3u8`); a pattern with `/` must start with
/// `/` and is matched against the whole path (`/seg-*.m4s`). The query string is never part of
/// the path. Matching is case-sensitive, on the path as the client sent it (percent-encoding
/// included).
public enum PathGlob {
    /// Whether `pattern` is one ``matches(_:path:)`` accepts; nil when so, else why not.
    public static func problem(_ pattern: String) -> String? {
        if pattern.contains("/") && !pattern.hasPrefix("/") {
            return
                "a path with / must start with / (it is matched against the whole path); without / it is matched against the last segment, as in *.ts"
        }
        if pattern.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "#" }) {
            return "a path has no spaces, control characters or #: write /exact/path, /seg-*.m4s or *.ts"
        }
        return nil
    }

    /// Whether the request path `path` (its query, if any, is ignored) matches `pattern`.
    public static func matches(_ pattern: String, path: String) -> Bool {
        let fullPath = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let subject: Substring
        if pattern.contains("/") {
            subject = fullPath
        } else if let slash = fullPath.lastIndex(of: "/") {
            subject = fullPath[fullPath.index(after: slash)...]
        } else {
            subject = fullPath
        }
        return glob(Array(pattern.unicodeScalars), Array(subject.unicodeScalars))
    }

    /// Classic wildcard matching with one backtrack point (linear in practice).
    private static func glob(_ pattern: [Unicode.Scalar], _ text: [Unicode.Scalar]) -> Bool {
        var p = 0
        var t = 0
        var star: Int?
        var starText = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t])) {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                starText = t
                p += 1
            } else if let s = star {
                p = s + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
