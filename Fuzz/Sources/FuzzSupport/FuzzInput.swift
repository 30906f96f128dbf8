/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, with the few ways the targets read them.
public struct FuzzInput: Sendable {
    /// The whole input.
    public var bytes: [UInt8]

    /// Copies `count` bytes from `start` (libFuzzer may pass a null pointer with a count of 0).
    public init(_ start: UnsafeRawPointer?, _ count: Int) {
        if let start, count > 0 {
            bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
        } else {
            bytes = []
        }
    }

    /// Wraps bytes (for tests of the helpers themselves).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The input as text, one code point per byte (as the proxy reads header bytes).
    public var latin1: String {
        var s = String.UnicodeScalarView()
        for b in bytes { s.append(Unicode.Scalar(b)) }
        return String(s)
    }

    /// The input as UTF-8 text, invalid sequences replaced (as JSON strings from a capture may be
    /// any Unicode).
    public var utf8: String { String(decoding: bytes, as: UTF8.self) }

    /// The input split after every LF, terminators kept; a last piece without LF is kept too.
    public var linesKeepingTerminators: [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        for (i, b) in bytes.enumerated() where b == 0x0A {
            out.append(bytes[start...i])
            start = i + 1
        }
        if start < bytes.count { out.append(bytes[start...]) }
        return out
    }
}

/// Stops the run when an invariant does not hold: libFuzzer reports the trap as a crash, saves
/// the input as an artifact and prints the message with the stack.
public func fuzzRequire(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("fuzz invariant: \(message())", file: file, line: line) }
}
