import RangeTapCore

/// Why a `--shape`, `--fault`, `--faults` or `--shape-trace` text is wrong.
///
/// Every description quotes the bad text and says what is allowed, so the CLI can print it as it
/// is. `what` is the kind of text (`shape` or `fault rule`), `rule` the whole text as given and
/// `item` the one `key=value` item at fault.
public enum LabSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is empty (or only blanks and commas).
    case empty(what: String, expected: String)
    /// An item has no `=` and its key is not one that stands alone.
    case missingValue(what: String, rule: String, item: String, allowed: [String])
    /// An item has `=` but nothing after it.
    case emptyValue(what: String, rule: String, item: String, allowed: [String])
    /// An item's key is not one of `allowed`.
    case unknownKey(what: String, rule: String, item: String, allowed: [String])
    /// A key appears twice in one text.
    case repeatedKey(what: String, rule: String, item: String, allowed: [String])
    /// An item's value does not parse; `expected` says what it may be.
    case badValue(what: String, rule: String, item: String, expected: String)
    /// Items that cannot go together, or one that needs another (`for=` without `stall-after=`).
    case badCombination(what: String, rule: String, reason: String)
    /// A refusal its caller words in full: settings that do not go together across flags or
    /// over time (`--shape` with a rate and `--shape-trace`; a scope changed while recording).
    case conflict(String)
    /// A fault rule with match keys only: it would not change anything.
    case noAction(rule: String)
    /// A line of a Mahimahi trace is not a timestamp, or goes back in time.
    case badTraceLine(name: String, line: Int, text: String, reason: String)
    /// A trace with no delivery opportunity at all.
    case emptyTrace(name: String)
    /// A trace whose last timestamp is 0: it would repeat without time passing.
    case zeroTracePeriod(name: String)
    /// A file could not be read.
    case cannotRead(path: String, reason: String)
    /// An error in one line of a file (a `--faults` file).
    indirect case inFile(name: String, line: Int, error: LabSpecError)

    public var description: String {
        switch self {
        case .empty(let what, let expected):
            "the \(what) is empty: \(expected)"
        case .missingValue(let what, let rule, let item, let allowed):
            "\(what) \"\(rule)\": \"\(item)\" has no value: write key=value items separated by commas; keys: \(Self.list(allowed))"
        case .emptyValue(let what, let rule, let item, let allowed):
            "\(what) \"\(rule)\": \"\(item)\" has an empty value: write key=value items separated by commas; keys: \(Self.list(allowed))"
        case .unknownKey(let what, let rule, let item, let allowed):
            "\(what) \"\(rule)\": \"\(item)\" is not a known key: the keys are \(Self.list(allowed))"
        case .repeatedKey(let what, let rule, let item, let allowed):
            "\(what) \"\(rule)\": \"\(item)\" repeats a key: give each key once; keys: \(Self.list(allowed))"
        case .badValue(let what, let rule, let item, let expected):
            "\(what) \"\(rule)\": \"\(item)\" is wrong: \(expected)"
        case .badCombination(let what, let rule, let reason):
            "\(what) \"\(rule)\": \(reason)"
        case .conflict(let message):
            message
        case .noAction(let rule):
            "fault rule \"\(rule)\" has no action: a rule needs an action: \(Self.list(FaultAction.keys)); match keys (\(Self.list(FaultMatch.keys))) only choose the requests"
        case .badTraceLine(let name, let line, let text, let reason):
            "trace \(name) line \(line): \"\(text)\" \(reason): each line is a whole number of milliseconds since the start, one line per 1500-byte packet, never decreasing (blank lines and # comments are ignored)"
        case .emptyTrace(let name):
            "trace \(name) has no timestamps: write one line per 1500-byte delivery opportunity, in milliseconds since the start (for example 0, 3, 6, …)"
        case .zeroTracePeriod(let name):
            "trace \(name) ends at 0 ms: the last timestamp is the trace's period (it repeats after it), so it must be more than 0"
        case .cannotRead(let path, let reason):
            "cannot read \(path): \(reason); give the path of a readable text file"
        case .inFile(let name, let line, let error):
            "\(name) line \(line): \(error)"
        }
    }

    /// `a, b or c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    }
}
