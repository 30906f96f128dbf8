/// The head a proxy sends downstream for one upstream response head, changed only where RFC
/// 9112 and RFC 9110 §7.6.1 require it of a proxy: whitespace before a colon removed (§5.1),
/// obs-folds replaced by SP (§5.2), hop-by-hop fields dropped, fields holding a bare CR
/// refused, line endings sent as CRLF. Everything else passes byte for byte: the reason phrase,
/// name case, value whitespace (leading and trailing spaces and tabs included), order and
/// duplicate fields.
public struct ForwardedResponseHead: Sendable, Hashable {
    /// The status line as received, CRLF-terminated.
    public var statusLine: String
    /// The field lines to send, in order, each CRLF-terminated.
    public var fields: [String]
    /// What was changed, in the order of the upstream lines (per field: the repairs, then
    /// whether it was dropped); a `bare-lf` change, if any, comes last.
    public var changes: [HeadChange]
    /// The `Transfer-Encoding` fields the hop-by-hop rule dropped, as they would have been sent
    /// (repaired, folds joined, CRLF-terminated), for a proxy that frames the body in chunks
    /// again and sends the origin's own line with it. Fields holding a bare CR are not among
    /// them: those are refused.
    public var transferEncoding: [String] = []

    /// The head as text: status line, field lines and the blank line.
    public var text: String { statusLine + fields.joined() + "\r\n" }

    /// The head's bytes, ready for the client socket (Latin-1, see ``Latin1``).
    public var bytes: [UInt8] { Latin1.bytes(text) }

    /// Rewrites one upstream head: `lines` as libcurl delivers them (status line, field lines,
    /// the blank line; anything after the first blank line is ignored). `hopByHop` holds the
    /// lowercased names that never cross a proxy; the fields `Connection` lists are dropped too.
    public init(upstream lines: [HeaderLine], hopByHop: Set<String>) throws(ForwardedHeadError) {
        guard let status = lines.first, status.syntax == .statusLine else {
            throw .missingStatusLine(lines.first?.raw ?? "")
        }
        if status.containsBareCR { throw .bareCRInStatusLine(status.raw) }
        statusLine = status.content + "\r\n"
        var bareLF = status.lineEnding == .bareLF ? [status.raw] : []

        // Physical lines to logical fields (folds joined) and lines dropped, in upstream order.
        var items: [PendingLine] = []
        var foldTarget: Int?
        // Whether every item so far is whitespace dropped right after the status line (kept as
        // a flag: asking `items` for each continuation line made a head of N such lines cost N²).
        var onlyLeadingWhitespace = true
        lines: for line in lines.dropFirst() {
            let ending = line.lineEnding
            if ending == .bareLF { bareLF.append(line.raw) }
            // The common line, read once: a line with a name is a well-formed field (see
            // ``HeaderLine/Syntax/field``); only other lines are read for their syntax.
            let content = line.content
            if let name = HeaderLine.name(in: content) {
                items.append(PendingLine(field: line, content: content, name: name, ending: ending))
                foldTarget = items.count - 1
                onlyLeadingWhitespace = false
                continue
            }
            switch line.syntax {
            case .blank:
                break lines
            case .field:
                items.append(PendingLine(line))
                foldTarget = items.count - 1
                onlyLeadingWhitespace = false
            case .spaceBeforeColon:
                items.append(PendingLine(line.removingSpaceBeforeColon(), original: line))
                foldTarget = items.count - 1
                onlyLeadingWhitespace = false
            case .obsFoldContinuation:
                if let i = foldTarget {
                    items[i].fold(line)
                } else {
                    items.append(
                        PendingLine(dropping: line, onlyLeadingWhitespace ? .whitespaceAfterStatusLine : .malformedLine)
                    )
                }
            case .statusLine, .noColon, .invalidName:
                items.append(PendingLine(dropping: line, .malformedLine))
                foldTarget = nil
                onlyLeadingWhitespace = false
            }
        }

        var connectionValues: [Substring] = []
        for item in items where item.isField && HeaderByte.equalsIgnoringASCIICase(item.name, "connection") {
            connectionValues.append(item.value)
        }
        let listed = connectionValues.isEmpty ? [] : Self.connectionTokens(connectionValues)
        var changes: [HeadChange] = []
        var fields: [String] = []
        for item in items {
            changes += item.repairs
            guard item.isField else { continue }
            if item.containsBareCR {
                changes.append(HeadChange(.bareCR, original: item.sources))
            } else if HeaderByte.contains(hopByHop, item.name) {
                changes.append(HeadChange(.hopByHop, original: item.sources))
                if HeaderByte.equalsIgnoringASCIICase(item.name.utf8, "transfer-encoding".utf8) {
                    transferEncoding.append(item.line)
                }
            } else if HeaderByte.contains(listed, item.name) {
                changes.append(HeadChange(.connectionListed, original: item.sources))
            } else {
                fields.append(item.line)
            }
        }
        if !bareLF.isEmpty { changes.append(HeadChange(.bareLF, original: bareLF)) }
        self.fields = fields
        self.changes = changes
    }

    /// Lowercased names the `Connection` values list.
    static func connectionTokens(_ values: [Substring]) -> Set<String> {
        var set = Set<String>()
        for v in values {
            for token in HeaderByte.commaSeparated(v) {
                let t = token.trimmingHTTPWhitespace()
                if !t.isEmpty { set.insert(HeaderByte.asciiLowercased(t)) }
            }
        }
        return set
    }
}

/// One logical field while a head is rewritten (its text so far, the lines it came from, the
/// repairs made), or one upstream line dropped outright.
///
/// Every response head of every exchange passes through here, so the common line (a field line
/// ending in CRLF, no repair) costs no copy: its text is a slice of the upstream line and the
/// line sent is the upstream line itself.
private struct PendingLine {
    /// `Name:value` without terminator, folds joined.
    private(set) var text: Substring
    /// The first upstream line, raw; ``sources`` adds those folded into it.
    private let source: String
    private var folds: [String] = []
    /// The upstream line, to send as it is: set while it is unchanged and ends in CRLF.
    private var unchanged: String?
    /// The field name as spelled (empty for a dropped line).
    let name: Substring
    private(set) var containsBareCR: Bool
    /// Whether this is a field (`false`: a dropped line, its change in ``repairs``).
    let isField: Bool
    /// The whitespace removed before the colon, if any.
    private var spaceRepair: HeadChange?
    private var folded = false
    private var dropped: HeadChange?

    init(_ line: HeaderLine, original: HeaderLine? = nil) {
        text = line.content
        source = (original ?? line).raw
        name = line.name ?? ""
        containsBareCR = line.containsBareCR || (original?.containsBareCR ?? false)
        isField = true
        if let original {
            spaceRepair = HeadChange(.spaceBeforeColon, original: [original.raw], replacement: String(text) + "\r\n")
        } else if line.lineEnding == .crlf {
            unchanged = line.raw
        }
    }

    /// A well-formed field line: `content` is the line's, `name` its name, `ending` how it ends
    /// (what `init(_:)` reads again from the line).
    init(field line: HeaderLine, content: Substring, name: Substring, ending: HeaderLine.LineEnding) {
        text = content
        source = line.raw
        self.name = name
        containsBareCR = content.utf8.contains(HeaderByte.cr)
        isField = true
        if ending == .crlf { unchanged = line.raw }
    }

    init(dropping line: HeaderLine, _ reason: HeadChange.Reason) {
        text = ""
        source = line.raw
        name = ""
        containsBareCR = line.containsBareCR
        isField = false
        dropped = HeadChange(reason, original: [line.raw])
    }

    /// The upstream lines, raw.
    var sources: [String] { [source] + folds }

    /// The line to send, CRLF-terminated.
    var line: String { unchanged ?? String(text) + "\r\n" }

    /// The changes made to this field's lines before deciding whether it is forwarded.
    var repairs: [HeadChange] {
        var out: [HeadChange] = []
        if let dropped { out.append(dropped) }
        if let spaceRepair { out.append(spaceRepair) }
        if folded { out.append(HeadChange(.obsFold, original: sources, replacement: line)) }
        return out
    }

    /// The value with surrounding whitespace removed, as `Connection` tokens are read.
    var value: Substring {
        guard let colon = text.firstIndex(of: ":") else { return "" }
        return text[text.index(after: colon)...].trimmingHTTPWhitespace()
    }

    /// Joins a continuation line: `OWS CRLF RWS` becomes one SP (RFC 9112 §5.2).
    mutating func fold(_ line: HeaderLine) {
        var head = text
        while let c = head.unicodeScalars.last, c == " " || c == "\t" {
            head = Substring(head.unicodeScalars.dropLast())
        }
        var tail = line.content
        while let c = tail.unicodeScalars.first, c == " " || c == "\t" {
            tail = Substring(tail.unicodeScalars.dropFirst())
        }
        text = Substring(String(head) + " " + String(tail))
        folds.append(line.raw)
        folded = true
        unchanged = nil
        containsBareCR = containsBareCR || line.containsBareCR
    }
}
