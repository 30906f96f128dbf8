import RangeTapCore

/// The response-head rewrites of `--fault` rules, on raw lines (status line first; field lines
/// keep their values and terminators).
enum HeadRewrite {
    /// `lines` with `action` applied, and what changed in words (nil when nothing did).
    static func apply(_ action: FaultAction, to lines: [HeaderLine]) -> (lines: [HeaderLine], detail: String?) {
        switch action {
        case .headerCase(let style):
            var changed = 0
            let out = lines.map { line -> HeaderLine in
                guard let name = line.name else { return line }
                let spelled = respell(String(name), style)
                guard spelled != name else { return line }
                changed += 1
                return HeaderLine(raw: spelled + line.raw.dropFirst(name.count))
            }
            return (
                out,
                changed == 0
                    ? nil : "respelled \(changed) header name\(changed == 1 ? "" : "s") in \(style.rawValue) case"
            )
        case .dropHeader(let target):
            let lower = target.lowercased()
            let out = lines.filter { $0.name?.lowercased() != lower }
            let dropped = lines.count - out.count
            return (out, dropped == 0 ? nil : "removed \(dropped) \(target) line\(dropped == 1 ? "" : "s")")
        case .offByOne:
            var detail: String?
            let out = lines.map { line -> HeaderLine in
                guard detail == nil, let name = line.name, name.lowercased() == "content-range", let value = line.value,
                    let parsed = try? ContentRange.parse(String(value)), let range = parsed.range,
                    range.last < Int64.max - 1
                else { return line }
                let total = parsed.completeLength.map(String.init) ?? "*"
                let shifted = "bytes \(range.first + 1)-\(range.last + 1)/\(total)"
                detail = "Content-Range \(value) sent as \(shifted)"
                return HeaderLine(raw: "\(name): \(shifted)\(line.terminator)")
            }
            return (out, detail)
        default:
            return (lines, nil)
        }
    }

    /// `name` in `style`: `lower` (content-range), `upper` (CONTENT-RANGE) or `mixed`, the
    /// spelling seen from real servers that capitalise only the first letter (Content-range).
    static func respell(_ name: String, _ style: HeaderCaseStyle) -> String {
        switch style {
        case .lower: return name.lowercased()
        case .upper: return name.uppercased()
        case .mixed: return name.prefix(1).uppercased() + name.dropFirst().lowercased()
        }
    }
}
