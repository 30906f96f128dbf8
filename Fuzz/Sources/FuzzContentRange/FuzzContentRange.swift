import FuzzSupport
import RangeTapCore

/// `Content-Range` values (`ContentRange.parse`), read as Latin-1 like a header value. A parsed
/// value must hold a valid range, and its canonical form must parse back to it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let value = input.latin1
    guard let parsed = try? ContentRange.parse(value) else { return 0 }
    fuzzRequire(!parsed.unit.isEmpty, "empty unit from \(value.debugDescription)")
    fuzzRequire(parsed.range != nil || parsed.completeLength != nil, "`*/*` accepted: \(value.debugDescription)")
    if let length = parsed.completeLength { fuzzRequire(length >= 0, "negative length \(length)") }
    var canonical = parsed.unit + " "
    if let range = parsed.range {
        fuzzRequire(range.first >= 0 && range.last >= range.first, "range \(range)")
        fuzzRequire(range.count >= 1 && range.upperBound >= range.last, "\(range) counts \(range.count)")
        canonical += range.description
    } else {
        canonical += "*"
    }
    canonical += "/" + (parsed.completeLength.map(String.init) ?? "*")
    let consistent = parsed.isConsistent
    if let range = parsed.range, let length = parsed.completeLength {
        fuzzRequire(consistent == (range.last < length), "isConsistent \(consistent) for \(canonical)")
    }
    let again = try? ContentRange.parse(canonical)
    fuzzRequire(again == parsed, "\(canonical.debugDescription) does not parse back to \(parsed)")
    return 0
}

/// Hands ``fuzz(_:_:)`` to libFuzzer's driver.
@main
enum Main {
    static func main() {
        runFuzzer { data, size in fuzz(UnsafeRawPointer(data), Int(size)) }
    }
}
