/// Head lines that break HTTP/1.1's field syntax, seen through ``HeaderLine/syntax``: for now
/// whitespace between a field name and its colon (RFC 9112 §5.1).
enum HeaderSyntaxCheck {
    static func findings(lines: [HeaderLine], exchange: Int, side: String) -> [Finding] {
        lines.compactMap { line in
            guard case .spaceBeforeColon(let name) = line.syntax else { return nil }
            return Finding(
                .headerSpaceBeforeColon,
                "\(side) header line \"\(String(line.content))\" has whitespace between the field name and the colon, which RFC 9112 §5.1 forbids (\"No whitespace is allowed between the field name and colon... a proxy MUST remove any such whitespace from a response message before forwarding\"): strict parsers such as libcurl's do not see \(name) at all, others reject the response; rangetap reads it as \(name) for its other checks, as a conforming proxy forwards it",
                evidence: [line.raw], exchange: exchange)
        }
    }
}
