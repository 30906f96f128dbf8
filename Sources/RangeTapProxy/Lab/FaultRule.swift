import RangeTapCore

/// One `--fault` rule: which requests it matches and what it does to them.
///
/// The text form is comma-separated `key=value` items, as `--shape`'s: match keys (`host=`,
/// `path=`, `method=`, `range=yes|no`, `nth=`) choose the requests, action keys (`status=`,
/// `reset-after=`, `stall-after=…,for=…`, `delay-head=`, `ignore-range`, `off-by-one`,
/// `drop-header=`, `header-case=`, `truncate-after=`) say what happens. For example
/// `path=*.ts,nth=3,reset-after=64k` or `host=cdn.example.com,status=503`. At least one action is
/// needed; with no match key the rule applies to every request.
public struct FaultRule: Sendable, Equatable, CustomStringConvertible {
    /// The rule as written (trimmed).
    public var text: String
    /// Which requests it applies to.
    public var match: FaultMatch
    /// What it does, in the order written (at least one).
    public var actions: [FaultAction]

    /// A rule made of parts.
    public init(text: String, match: FaultMatch, actions: [FaultAction]) {
        self.text = text
        self.match = match
        self.actions = actions
    }

    /// Parses one rule, such as `path=*.ts,nth=3,reset-after=64k`.
    public init(parsing text: String) throws(LabSpecError) {
        let what = "fault rule"
        let list = try KeyValueList(
            parsing: text, what: what, keys: FaultMatch.matchKeys + FaultAction.actionKeys, flags: FaultAction.flagKeys)
        if list.items.isEmpty {
            throw .empty(
                what: what,
                expected:
                    "write key=value items such as path=*.ts,nth=3,reset-after=64k: match keys (\(LabSpecError.list(FaultMatch.keys))) and at least one action (\(LabSpecError.list(FaultAction.keys)))"
            )
        }
        var match = FaultMatch()
        var actions: [FaultAction] = []
        var stallFor: Int64?
        for item in list.items {
            if try match.read(item, in: list) { continue }
            switch item.key {
            case "status":
                guard item.value.count == 3, item.value.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let code = Int(item.value), (100...599).contains(code)
                else {
                    throw list.badValue(item, expected: "status is a three-digit code from 100 to 599, such as 503")
                }
                actions.append(.status(code))
            case "reset-after":
                actions.append(.resetAfter(try Self.size(item, in: list)))
            case "truncate-after":
                actions.append(.truncateAfter(try Self.size(item, in: list)))
            case "stall-after":
                actions.append(.stallAfter(try Self.size(item, in: list), forNs: 0))
            case "for":
                stallFor = try Self.duration(item, in: list)
            case "delay-head":
                actions.append(.delayHead(try Self.duration(item, in: list)))
            case "ignore-range":
                actions.append(.ignoreRange)
            case "off-by-one":
                actions.append(.offByOne)
            case "drop-header":
                guard FaultMatch.isToken(item.value) else {
                    throw list.badValue(
                        item,
                        expected:
                            "write a header field name such as Content-Range or Accept-Ranges (letters, digits and !#$%&'*+-.^_`|~)"
                    )
                }
                actions.append(.dropHeader(item.value))
            default:  // "header-case"
                guard let style = HeaderCaseStyle(rawValue: item.value.lowercased()) else {
                    throw list.badValue(item, expected: "header-case is lower, upper or mixed")
                }
                actions.append(.headerCase(style))
            }
        }
        if let stall = actions.firstIndex(where: { $0.name == "stall-after" }),
            case .stallAfter(let bytes, _) = actions[stall]
        {
            guard let ns = stallFor else {
                throw list.badCombination(
                    "stall-after= needs for= to say how long the stall lasts, as in stall-after=256k,for=5s")
            }
            actions[stall] = .stallAfter(bytes, forNs: ns)
        } else if stallFor != nil {
            throw list.badCombination("for= goes with stall-after= only, as in stall-after=256k,for=5s")
        }
        guard !actions.isEmpty else { throw .noAction(rule: list.rule) }
        self.text = list.rule
        self.match = match
        self.actions = actions
    }

    /// The rule as written.
    public var description: String { text }

    /// Parses a `--faults` file: one rule a line; blank lines and lines starting with `#` are
    /// ignored. Errors name the file (`name`) and the line. A file with no rule gives none.
    public static func parseFile(_ contents: String, name: String) throws(LabSpecError) -> [FaultRule] {
        var rules: [FaultRule] = []
        for (number, line) in LabTextFile.contentLines(contents) {
            do {
                rules.append(try FaultRule(parsing: String(line)))
            } catch {
                throw .inFile(name: name, line: number, error: error)
            }
        }
        return rules
    }

    /// Reads and parses the `--faults` file at `path`.
    public static func load(path: String) throws(LabSpecError) -> [FaultRule] {
        try parseFile(try LabTextFile.read(path), name: path)
    }

    /// The bytes of a size item (``SizeText``'s spellings), at least 0.
    private static func size(_ item: KeyValueList.Item, in list: KeyValueList) throws(LabSpecError) -> Int64 {
        guard let bytes = try? SizeText.bytes(item.value), bytes >= 0 else {
            throw list.badValue(
                item, expected: "write a number of bytes (65536) or one with k, m or g (64k, 1.5m; powers of 1024)")
        }
        return bytes
    }

    /// The nanoseconds of a duration item, more than 0.
    private static func duration(_ item: KeyValueList.Item, in list: KeyValueList) throws(LabSpecError) -> Int64 {
        guard let ns = LabDuration.nanoseconds(item.value), ns > 0 else {
            throw list.badValue(item, expected: LabDuration.expected + " (more than 0)")
        }
        return ns
    }
}
