import RangeTapCore
import RangeTapSystem

/// One `--map` rule (Map Local): which requests rangetap answers itself, never forwarding them,
/// and from what: `file=PATH` (one file), `dir=PATH` (the file under the directory that the
/// request's path names) or `capture=CAP` (a capture's recorded bytes). The match keys are
/// `--fault`'s (`host=`, `path=`, `method=`, `range=`, `nth=`), e.g.
/// `path=/video/*.mp4,dir=./fixed` or `host=cdn.example.com,path=master.m3u8,file=fixed.m3u8`.
/// The answers have RFC 9110 range semantics (``RangeAnswerPlanner``, as `serve --ideal`'s).
public struct MapRule: Sendable, Equatable, CustomStringConvertible {
    /// Where the answers come from.
    public enum Source: Sendable, Equatable {
        /// One file, by its absolute path.
        case file(String)
        /// A directory (its real path): the request's path, after the rule's `path=` prefix,
        /// names a file under it.
        case directory(String)
        /// A capture directory: the resource of the request's path and query, as recorded.
        case capture(String)
    }

    /// The rule as written (trimmed).
    public var text: String
    /// Which requests it answers.
    public var match: FaultMatch
    /// What it answers from.
    public var source: Source

    /// The source keys.
    static let sourceKeys = ["file", "dir", "capture"]

    /// Parses one rule such as `path=*.mp4,file=./fixed.mp4`; a relative path is taken from the
    /// working directory, and must exist.
    public init(parsing text: String) throws(LabSpecError) {
        let what = "map rule"
        let list = try KeyValueList(parsing: text, what: what, keys: FaultMatch.matchKeys + Self.sourceKeys)
        let expected =
            "say which requests (\(LabSpecError.list(FaultMatch.keys))) and where their answers come from: file=PATH, dir=PATH or capture=CAPTURE.rtap, as in path=*.mp4,file=./fixed.mp4"
        if list.items.isEmpty { throw .empty(what: what, expected: expected) }
        var match = FaultMatch()
        var source: Source?
        for item in list.items {
            if try match.read(item, in: list) { continue }
            if source != nil {
                throw list.badCombination("give one of file=, dir= and capture=: a rule answers from one source")
            }
            guard let real = System.realPath(item.value), let status = System.status(real) else {
                throw list.badValue(item, expected: "\(item.value) does not exist")
            }
            switch item.key {
            case "file":
                guard status.kind == .regular else {
                    throw list.badValue(item, expected: "\(item.value) is not a regular file (dir= maps a directory)")
                }
                source = .file(real)
            case "dir":
                guard status.kind == .directory else {
                    throw list.badValue(item, expected: "\(item.value) is not a directory (file= maps one file)")
                }
                source = .directory(real)
            default:  // "capture"
                guard status.kind == .directory, System.status(real + "/events.jsonl")?.kind == .regular else {
                    throw list.badValue(
                        item, expected: "\(item.value) is not a capture directory (NAME.rtap with events.jsonl)")
                }
                source = .capture(real)
            }
        }
        guard let source else { throw list.badCombination(expected) }
        self.text = list.rule
        self.match = match
        self.source = source
    }

    /// The rule as written.
    public var description: String { text }
}
