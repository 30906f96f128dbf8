import FuzzSupport
import RangeTapCore

/// Raw header lines (`HeaderLine`: content, terminator, name, value, `syntax`, `lineEnding`,
/// bare CR, redaction, the space-before-colon repair) and the lookups over a list of them. The
/// input is split after each LF and read twice: as Latin-1, the way the proxy turns socket bytes
/// into lines, and as UTF-8, the way a capture's JSON strings come back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let pieces = input.linesKeepingTerminators
    var latin1Lines: [HeaderLine] = []
    for piece in pieces {
        let line = HeaderLine(raw: Latin1.string(piece))
        fuzzRequire(Latin1.bytes(line.raw) == Array(piece), "Latin-1 round trip of \(line.raw.debugDescription)")
        check(line)
        latin1Lines.append(line)
    }
    checkList(latin1Lines)
    let utf8Lines = pieces.map { HeaderLine(raw: String(decoding: $0, as: UTF8.self)) }
    for line in utf8Lines { check(line) }
    checkList(utf8Lines)
    return 0
}

/// What must hold for every line, whatever its text.
private func check(_ line: HeaderLine) {
    let raw = line.raw.debugDescription
    let content = line.content
    let terminator = line.terminator
    fuzzRequire(String(content) + terminator == line.raw, "content + terminator of \(raw)")
    switch line.lineEnding {
    case .crlf: fuzzRequire(terminator == "\r\n", "crlf for \(raw)")
    case .bareLF: fuzzRequire(terminator == "\n", "bare LF for \(raw)")
    case .none: fuzzRequire(terminator.isEmpty, "no terminator for \(raw)")
    }
    fuzzRequire(line.containsBareCR == content.unicodeScalars.contains("\r"), "bare CR in \(raw)")

    let syntax = line.syntax
    fuzzRequire(line.isBlank == (syntax == .blank), "blank vs syntax \(syntax) for \(raw)")
    let name = line.name
    fuzzRequire((name != nil) == (syntax == .field), "name \(String(describing: name)) vs syntax \(syntax) for \(raw)")
    fuzzRequire((line.value != nil) == (name != nil), "value without name for \(raw)")
    if let name {
        fuzzRequire(
            content.unicodeScalars.starts(with: (name + ":").unicodeScalars),
            "name \(name.debugDescription) is not what \(raw) starts with")
        let redacted = line.redacted()
        fuzzRequire(
            redacted.name == name && redacted.terminator == terminator,
            "redacted \(redacted.raw.debugDescription) of \(raw)")
    } else {
        fuzzRequire(line.redacted() == line, "redaction changed the non-field \(raw)")
    }
    _ = line.isSecret
    _ = line.description

    let repaired = line.removingSpaceBeforeColon()
    if case .spaceBeforeColon(let spaceName) = syntax {
        fuzzRequire(
            repaired.syntax == .field, "repair of \(raw) is \(repaired.syntax): \(repaired.raw.debugDescription)")
        fuzzRequire(
            repaired.name.map(String.init) == spaceName,
            "repair of \(raw) is named \(String(describing: repaired.name))")
        fuzzRequire(repaired.terminator == terminator, "repair of \(raw) changed the terminator")
        let colon = content.unicodeScalars.firstIndex(of: ":")!
        var after = String.UnicodeScalarView()
        after.append(contentsOf: content.unicodeScalars[colon...])
        fuzzRequire(
            repaired.content == spaceName + String(after), "repair of \(raw) is \(repaired.raw.debugDescription)")
    } else {
        fuzzRequire(repaired == line, "repair changed \(raw) of syntax \(syntax)")
    }
}

/// The list helpers, asked for names the lines carry and a few that matter to rangetap.
private func checkList(_ lines: [HeaderLine]) {
    // A few names the lines carry (not all: that would make the check quadratic in the lines).
    var names = Set(["content-range", "Range", "CONNECTION", "set-cookie"])
    for line in lines.prefix(8) { if let n = line.name { names.insert(String(n)) } }
    for name in names {
        let values = lines.values(named: name)
        let first = lines.first(named: name)
        fuzzRequire(values.first.map(String.init) == first, "first(named: \(name)) is not values(named:).first")
    }
    let redacted = lines.redactingSecrets()
    fuzzRequire(redacted.count == lines.count, "redactingSecrets changed the line count")
    for (a, b) in zip(lines, redacted) where !a.isSecret {
        fuzzRequire(a == b, "redactingSecrets changed the non-secret \(a.raw.debugDescription)")
    }
}

/// Hands ``fuzz(_:_:)`` to libFuzzer's driver.
@main
enum Main {
    static func main() {
        runFuzzer { data, size in fuzz(UnsafeRawPointer(data), Int(size)) }
    }
}
