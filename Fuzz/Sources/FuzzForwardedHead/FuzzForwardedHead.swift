import FuzzSupport
import RangeTapCore

/// The hop-by-hop names the proxy drops (RFC 9110 §7.6.1), lowercased.
private let hopByHop: Set<String> = [
    "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    "proxy-authenticate", "proxy-authorization",
]

/// Whole upstream response heads through `ForwardedResponseHead`, the head the proxy sends
/// downstream. The input is split after each LF into `HeaderLine`s (Latin-1, as libcurl's header
/// callback hands them to the proxy). When the input does not start with `HTTP/`, a status line
/// is put in front so that most inputs reach the field rewriting. What comes out must be a head
/// a strict HTTP/1.1 parser takes: CRLF everywhere, no bare CR, no obs-fold, no space before a
/// colon, no hop-by-hop or Connection-listed field.
///
/// This stands in for the proxy's `UpstreamHeadAssembler` (internal to RangeTapProxy, which
/// this package cannot reach without `@testable`): the assembler only groups libcurl's lines
/// into heads and hands each to this initializer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    var lines = input.linesKeepingTerminators.map { HeaderLine(raw: Latin1.string($0)) }
    if !input.bytes.starts(with: Array("HTTP/".utf8)) {
        lines.insert(HeaderLine(raw: "HTTP/1.1 206 Partial Content\r\n"), at: 0)
    }
    let head: ForwardedResponseHead
    do {
        head = try ForwardedResponseHead(upstream: lines, hopByHop: hopByHop)
    } catch {
        _ = error.description
        return 0
    }
    let status = HeaderLine(raw: head.statusLine)
    fuzzRequire(
        status.syntax == .statusLine && status.lineEnding == .crlf && !status.containsBareCR,
        "status line \(head.statusLine.debugDescription)")

    var connectionListed = Set<String>()
    for field in head.fields {
        let line = HeaderLine(raw: field)
        fuzzRequire(line.syntax == .field, "forwarded \(field.debugDescription) is \(line.syntax)")
        fuzzRequire(line.lineEnding == .crlf && !line.containsBareCR, "forwarded \(field.debugDescription) ends badly")
        fuzzRequire(!line.content.unicodeScalars.contains("\n"), "LF inside forwarded \(field.debugDescription)")
        let name = line.name!.lowercased()
        fuzzRequire(!hopByHop.contains(name), "hop-by-hop \(field.debugDescription) forwarded")
        if name == "connection" { connectionListed.formUnion(tokens(line.value!)) }
    }
    for field in head.fields {
        let name = HeaderLine(raw: field).name!.lowercased()
        fuzzRequire(!connectionListed.contains(name), "Connection-listed \(field.debugDescription) forwarded")
    }
    for change in head.changes {
        fuzzRequire(!change.original.isEmpty, "change \(change) names no upstream line")
        _ = change.description
    }

    // The bytes go to the client as they are: Latin-1 back to the bytes received, and the head
    // read again line by line is the same head, unchanged.
    let bytes = head.bytes
    fuzzRequire(Latin1.string(bytes) == head.text, "Latin-1 round trip of the forwarded head")
    let reread = FuzzInput(bytes: bytes).linesKeepingTerminators.map { HeaderLine(raw: Latin1.string($0)) }
    let again = try? ForwardedResponseHead(upstream: reread, hopByHop: hopByHop)
    fuzzRequire(
        again?.statusLine == head.statusLine && again?.fields == head.fields,
        "forwarding the forwarded head changed it: \(head.text.debugDescription)")
    fuzzRequire(again?.changes.isEmpty == true, "the forwarded head still needs \(again?.changes ?? [])")
    return 0
}

/// Comma-separated tokens of a `Connection` value, lowercased.
private func tokens(_ value: Substring) -> Set<String> {
    Set(value.split(separator: ",").map { $0.trimmingHTTPWhitespace().lowercased() }.filter { !$0.isEmpty })
}

/// Hands ``fuzz(_:_:)`` to libFuzzer's driver.
@main
enum Main {
    static func main() {
        runFuzzer { data, size in fuzz(UnsafeRawPointer(data), Int(size)) }
    }
}
