import Foundation
import FuzzSupport
import RangeTapCore

/// One line of `events.jsonl` through `CaptureEvent.decode(jsonLine:lineNumber:)`, which tries
/// `ChunkLineParser` (the fast path for chunk lines) before the full JSON decoder.
///
/// Two properties: the fast path agrees with the full decoder (the same line with one leading
/// space, which JSON allows and the fast path never takes, must decode to the same event or
/// fail too), and what decodes can be written and read back unchanged (`jsonLine()`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let line = Data(input.bytes)
    let decoded = Result { () throws(CaptureError) -> CaptureEvent? in
        try CaptureEvent.decode(jsonLine: line, lineNumber: 7)
    }
    let slow = Result { () throws(CaptureError) -> CaptureEvent? in
        try CaptureEvent.decode(jsonLine: Data([0x20]) + line, lineNumber: 7)
    }
    switch (decoded, slow) {
    case (.success(let a), .success(let b)):
        fuzzRequire(a == b, "fast and full decoders differ: \(String(describing: a)) vs \(String(describing: b))")
    case (.failure(let error), .failure):
        _ = error.description
    case (.success(let a), .failure(let e)):
        fuzzRequire(false, "only the fast path takes the line, as \(String(describing: a)); full decoder: \(e)")
    case (.failure(let e), .success(let b)):
        fuzzRequire(
            false, "only the full decoder takes the line, as \(String(describing: b)); with the fast path: \(e)")
    }
    guard case .success(let event?) = decoded else { return 0 }
    let written = event.jsonLine()
    fuzzRequire(written.last == 0x0A, "jsonLine() does not end with LF")
    let reread = Result { () throws(CaptureError) -> CaptureEvent? in
        try CaptureEvent.decode(jsonLine: Data(written.dropLast()), lineNumber: 7)
    }
    switch reread {
    case .success(let again):
        fuzzRequire(
            again == event, "written and read back, \(String(describing: event)) became \(String(describing: again))")
    case .failure(let error):
        fuzzRequire(
            false,
            "the writer's line \(String(decoding: written, as: UTF8.self).debugDescription) does not read back: \(error)"
        )
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
