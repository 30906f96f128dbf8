import FuzzSupport
import RangeTapCore

/// `multipart/byteranges` bodies (`MultipartByteranges.boundary(contentType:)` and `parse`).
/// The input's first line is the Content-Type value, the rest the body; when the value has no
/// boundary the body is split on `B`. Parts must be pieces of the body, in order, without
/// overlap, and their header lines real lines.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let newline = input.bytes.firstIndex(of: 0x0A) ?? input.bytes.count
    let contentType = Latin1.string(input.bytes[..<newline])
    let body = newline < input.bytes.count ? Array(input.bytes[(newline + 1)...]) : []
    let found = MultipartByteranges.boundary(contentType: contentType)
    if let found { fuzzRequire(!found.isEmpty, "empty boundary from \(contentType.debugDescription)") }
    let boundary = found ?? "B"

    let parts: MultipartByteranges
    switch MultipartByteranges.parse(body, boundary: boundary) {
    case .failure(let error):
        _ = "\(error)"
        return 0
    case .success(let p):
        parts = p
    }
    let delimiter = Array("--\(boundary)".utf8)
    var total = 0
    var searchFrom = 0
    for part in parts.parts {
        for line in part.headers {
            fuzzRequire(
                !line.isBlank && line.raw.unicodeScalars.last == "\n", "part header \(line.raw.debugDescription)")
        }
        total += part.body.count + part.headers.reduce(0) { $0 + $1.raw.unicodeScalars.count }
        fuzzRequire(total + delimiter.count <= body.count, "parts hold more bytes than the body")
        // Each part's bytes occur in the body after the previous part's.
        guard let at = find(part.body, in: body, from: searchFrom) else {
            fuzzRequire(false, "a part's \(part.body.count) bytes are not in the body after the previous part")
            return 0
        }
        searchFrom = at + part.body.count
        if let value = part.contentRange { _ = try? ContentRange.parse(value) }
    }
    return 0
}

/// The first index of `needle` in `hay` at or after `from` (an empty needle is found at `from`).
private func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
    if needle.isEmpty { return from <= hay.count ? from : nil }
    var i = from
    while i + needle.count <= hay.count {
        if hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
        i += 1
    }
    return nil
}

/// Hands ``fuzz(_:_:)`` to libFuzzer's driver.
@main
enum Main {
    static func main() {
        runFuzzer { data, size in fuzz(UnsafeRawPointer(data), Int(size)) }
    }
}
