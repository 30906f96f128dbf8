import RangeTapCore

/// How `header-case=` rewrites the names of the response's header fields.
public enum HeaderCaseStyle: String, Sendable {
    /// `content-range`.
    case lower
    /// `CONTENT-RANGE`.
    case upper
    /// `cOnTeNt-RaNgE`: letters alternate, starting lower.
    case mixed
}
