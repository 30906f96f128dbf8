import RangeTapCore

/// Why an HLS playlist or a DASH MPD could not be read into ``MediaSegmentRef``s.
///
/// Every case names the document's URL and the line at fault, so the message points at the
/// exact place to look in the capture.
public enum MediaParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text does not start with `#EXTM3U`, so it is not an HLS playlist.
    case notAPlaylist(url: String, firstLine: String)
    /// A playlist tag or URI line is not what RFC 8216 asks for.
    case invalidPlaylistLine(url: String, line: Int, text: String, expected: String)
    /// An `EXT-X-BYTERANGE` (or a `BYTERANGE` attribute) without `@offset` follows no earlier
    /// sub-range of the same URI, so its offset is unknown.
    case byteRangeWithoutOffset(url: String, line: Int, value: String, uri: String)
    /// The MPD is not well-formed XML.
    case malformedXML(url: String, line: Int, expected: String, found: String)
    /// The MPD exceeds a bound the XML reader keeps (size or nesting depth).
    case xmlLimitExceeded(url: String, line: Int, limit: String)
    /// An MPD element lacks an attribute it needs, or holds one that cannot be read.
    case invalidManifest(url: String, line: Int, element: String, problem: String)
    /// A representation would list more segments than rangetap maps.
    case tooManySegments(url: String, line: Int, rendition: String, limit: Int)

    /// A message that says where the problem is and what to check.
    public var description: String {
        switch self {
        case let .notAPlaylist(url, firstLine):
            return
                "playlist \(url) line 1: expected #EXTM3U, found \(Self.quoted(firstLine)); the response is not an HLS playlist (check the URL and the Content-Type)"
        case let .invalidPlaylistLine(url, line, text, expected):
            return "playlist \(url) line \(line): \(Self.quoted(text)): expected \(expected)"
        case let .byteRangeWithoutOffset(url, line, value, uri):
            return
                "playlist \(url) line \(line): EXT-X-BYTERANGE \(Self.quoted(value)) has no offset and no earlier range of \(uri) to continue; the range needs the form length@offset"
        case let .malformedXML(url, line, expected, found):
            return "MPD \(url) line \(line): malformed XML: expected \(expected), found \(found)"
        case let .xmlLimitExceeded(url, line, limit):
            return "MPD \(url) line \(line): \(limit); rangetap does not read manifests this large"
        case let .invalidManifest(url, line, element, problem):
            return "MPD \(url) line \(line): <\(element)> \(problem)"
        case let .tooManySegments(url, line, rendition, limit):
            return
                "MPD \(url) line \(line): representation \(rendition) would list more than \(limit) segments; check the segment durations, timescale and S@r against the period's duration"
        }
    }

    /// `text` in double quotes, cut to 120 characters so a binary response stays readable.
    static func quoted(_ text: String) -> String {
        let cut = text.count > 120 ? String(text.prefix(120)) + "…" : text
        return "\"" + cut + "\""
    }
}
