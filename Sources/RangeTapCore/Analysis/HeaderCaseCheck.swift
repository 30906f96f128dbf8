/// Header spelling checks: names not in their usual case, the same field twice in different
/// case, conflicting duplicate values, bare-LF line endings.
enum HeaderCaseCheck {
    /// Usual spelling of fields whose lookups matter to players and caches, by lowercase name.
    static let canonical: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "Accept-Ranges", "Content-Range", "Content-Length", "Content-Type", "Content-Encoding", "Transfer-Encoding",
            "Connection", "Keep-Alive", "ETag", "Last-Modified", "Cache-Control", "Date", "Expires", "Age", "Vary",
            "Location", "Content-Disposition", "Set-Cookie", "Server", "Access-Control-Allow-Origin", "Retry-After",
        ].map { ($0.lowercased(), $0) })

    /// Fields that must have one value; two different values are a conflict.
    static let singletons: Set<String> = [
        "content-type", "content-length", "content-range", "accept-ranges", "etag", "last-modified", "location",
        "content-encoding",
    ]

    /// The findings for one head. `overHTTP2`: the head came as HTTP/2 fields, whose names are
    /// lower-case by definition (RFC 9113 §8.2.1), so their case is not judged (`header-case`).
    static func findings(lines: [HeaderLine], exchange: Int, side: String, overHTTP2: Bool = false) -> [Finding] {
        var out: [Finding] = []
        var byName: [String: [HeaderLine]] = [:]
        var order: [String] = []
        for line in lines {
            guard let name = line.name else { continue }
            let lower = name.lowercased()
            if byName[lower] == nil { order.append(lower) }
            byName[lower, default: []].append(line)
            if !overHTTP2, let usual = canonical[lower], usual != name {
                out.append(
                    Finding(
                        .headerCase,
                        "\(side) header \"\(name)\" is not spelled \"\(usual)\": a case-sensitive lookup such as allHeaderFields[\"\(usual)\"] misses it",
                        evidence: [line.raw], exchange: exchange))
            }
        }
        for lower in order {
            let group = byName[lower]!
            guard group.count > 1 else { continue }
            let spellings = Set(group.compactMap { $0.name.map(String.init) })
            if spellings.count > 1 {
                out.append(
                    Finding(
                        .headerDuplicateCase,
                        "\(side) header \(lower) appears \(group.count) times spelled \(spellings.sorted().joined(separator: " and ")): clients that look up one spelling see a different value than those that fold case",
                        evidence: group.map(\.raw), exchange: exchange))
            }
            let values = Set(group.compactMap { $0.value.map(String.init) })
            if values.count > 1 && singletons.contains(lower) || values.count > 1 && spellings.count > 1 {
                out.append(
                    Finding(
                        .headerConflict,
                        "\(side) header \(lower) has conflicting values \(values.sorted().map { "\"\($0)\"" }.joined(separator: ", ")): which one a client uses depends on its header library",
                        evidence: group.map(\.raw), exchange: exchange))
            }
        }
        if let bare = lines.first(where: { $0.terminator == "\n" }) {
            out.append(
                Finding(
                    .bareLF,
                    "\(side) head uses bare LF line endings (\(lines.filter { $0.terminator == "\n" }.count) lines), which strict HTTP parsers reject",
                    evidence: [bare.raw], exchange: exchange))
        }
        return out
    }
}
