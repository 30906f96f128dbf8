import FuzzSupport
import RangeTapCore

/// Lengths every parsed spec is resolved against, besides ones taken from the spec itself.
private let lengths: [Int64] = [0, 1, 2, 500, 1 << 32, Int64.max - 1, Int64.max]

/// `Range` request values (`RangeRequest.parse`, `RangeSpec.resolved(length:)`), read as
/// Latin-1 like a header value. A parsed value must survive its canonical form, and every spec
/// must resolve inside any length or not at all.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let value = input.latin1
    guard let request = try? RangeRequest.parse(value) else { return 0 }
    fuzzRequire(!request.specs.isEmpty, "a parsed Range has specs: \(value.debugDescription)")
    _ = request.isBytes

    let again = try? RangeRequest.parse(request.headerValue)
    fuzzRequire(again == request, "\(request.headerValue.debugDescription) does not parse back to \(request)")

    for spec in request.specs {
        var candidates = lengths
        switch spec {
        case .closed(let first, let last):
            fuzzRequire(first >= 0 && last >= first, "closed spec \(first)-\(last)")
            candidates += [first, first &+ 1, last, last &+ 1]
        case .from(let first):
            fuzzRequire(first >= 0, "from spec \(first)")
            candidates += [first, first &+ 1]
        case .suffix(let n):
            fuzzRequire(n >= 0, "suffix spec \(n)")
            candidates += [n, n &- 1, n &+ 1]
        }
        if let first = spec.knownFirst { fuzzRequire(first >= 0, "knownFirst \(first)") }
        for length in candidates where length >= 0 {
            guard let range = spec.resolved(length: length) else { continue }
            fuzzRequire(range.first >= 0 && range.last < length, "\(spec) in \(length) resolved to \(range)")
            fuzzRequire(range.count >= 1 && range.upperBound > range.first, "\(range) counts \(range.count)")
            if let first = spec.knownFirst {
                fuzzRequire(range.first == first, "\(spec) in \(length) starts at \(range.first)")
            }
        }
    }
    return 0
}

/// Hands ``fuzz(_:_:)`` to libFuzzer's driver.
@main
enum Main {
    static func main() {
        runFuzzer { data, size in fuzz(UnsafeRawPointer(data), Int(size)) }
    }
}
