import RangeTapCore

/// A `SegmentTemplate@media` or `@initialization` string: `$RepresentationID$`, `$Number$`,
/// `$Time$` and `$Bandwidth$` identifiers, the numeric ones with an optional `%0<width>d`
/// format (`$Number%05d$`), and `$$` for a dollar sign.
struct DASHURLTemplate {
    /// Values the identifiers stand for; nil where the template may not use one.
    struct Values {
        var representationID: String
        var bandwidth: Int?
        var number: Int?
        var time: Int64?
    }

    private enum Piece {
        case literal(String)
        case representationID
        case bandwidth(width: Int)
        case number(width: Int)
        case time(width: Int)
    }

    private let pieces: [Piece]

    /// Reads `text`; the error says what is wrong with it.
    init(_ text: String) throws(DASHTemplateProblem) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            if dollar > rest.startIndex { pieces.append(.literal(String(rest[..<dollar]))) }
            let after = rest.index(after: dollar)
            guard let close = rest[after...].firstIndex(of: "$") else {
                throw DASHTemplateProblem("has a \"$\" without its closing \"$\"")
            }
            let identifier = rest[after..<close]
            rest = rest[rest.index(after: close)...]
            if identifier.isEmpty {
                pieces.append(.literal("$"))
                continue
            }
            let parts = identifier.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            var width = 1
            if parts.count == 2 {
                let format = parts[1]
                guard format.first == "0", format.hasSuffix("d"), let w = Int(format.dropFirst().dropLast()),
                    (1...32).contains(w)
                else {
                    throw DASHTemplateProblem(
                        "has format \"%\(format)\" in $\(identifier)$; only %0<width>d (width 1 to 32) is allowed")
                }
                width = w
            }
            switch parts[0] {
            case "RepresentationID":
                guard parts.count == 1 else {
                    throw DASHTemplateProblem("formats $RepresentationID$, which takes no format")
                }
                pieces.append(.representationID)
            case "Bandwidth": pieces.append(.bandwidth(width: width))
            case "Number": pieces.append(.number(width: width))
            case "Time": pieces.append(.time(width: width))
            default:
                throw DASHTemplateProblem(
                    "uses $\(identifier)$; known identifiers are $RepresentationID$, $Number$, $Time$, $Bandwidth$ and $$"
                )
            }
        }
        if !rest.isEmpty { pieces.append(.literal(String(rest))) }
        self.pieces = pieces
    }

    /// The string with identifiers replaced by `values`.
    func expand(_ values: Values) throws(DASHTemplateProblem) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case let .literal(s): out += s
            case .representationID: out += values.representationID
            case let .bandwidth(width):
                guard let b = values.bandwidth else {
                    throw DASHTemplateProblem("uses $Bandwidth$ but the representation has no @bandwidth")
                }
                out += Self.padded(Int64(b), width)
            case let .number(width):
                guard let n = values.number else {
                    throw DASHTemplateProblem("uses $Number$ where there is no segment number")
                }
                out += Self.padded(Int64(n), width)
            case let .time(width):
                guard let t = values.time else {
                    throw DASHTemplateProblem("uses $Time$ where there is no segment time")
                }
                out += Self.padded(t, width)
            }
        }
        return out
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - digits.count - sign.count)) + digits
    }
}
