import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The upstream thread sends a large response's head to a plain HTTP/1 client itself
/// (`DirectHeadOffer`): the bytes at the client must be exactly those the event loop would
/// have written, in order with everything else on the connection, and the capture the same.
@Suite(.serialized)
struct DirectHeadTests {
    let origin: RawOrigin
    /// 100,000 bytes of letters: a body over the 64 KiB below which heads go the usual way.
    let body: String

    init() throws {
        origin = try RawOrigin()
        var x: UInt32 = 0x5EED
        body = String((0..<100_000).map { _ -> Character in
            x = x &* 1_664_525 &+ 1_013_904_223
            return Character(Unicode.Scalar(UInt8(97 + (x >> 24) % 26)))
        })
    }

    func get(_ name: String, method: String = "GET", version: String = "HTTP/1.1", headers: [String] = []) -> String {
        (["\(method) \(origin.url(name)) \(version)", "Host: 127.0.0.1:\(origin.port)"] + headers + ["", ""]).joined(separator: "\r\n")
    }

    /// Sends `request` on a fresh connection to `port` and reads the response head and
    /// `bodyCount` body bytes, as Latin-1 text.
    func roundTrip(_ port: Int, _ request: String, bodyCount: Int) throws -> (head: String, body: String) {
        let client = try RawClient(port: port)
        defer { client.close() }
        try client.send(request)
        let head = try client.readHead().latin1
        return (head, try client.read(count: bodyCount).latin1)
    }

    /// A quirky head: reason phrase, spacing, case, duplicates, a fold, a space before a colon,
    /// hop-by-hop fields; and the head a client must get for it.
    let quirky = "HTTP/1.1 206 Partial  Stuff\r\ncontent-range: bytes 0-99999/200000\r\nX-Pad:   three  \r\nX-Dup: 1\r\nx-dup: 2\r\nX-Fold: one\r\n\ttwo\r\nETag : \"e\"\r\nKeep-Alive: timeout=5\r\nContent-Length: 100000\r\n\r\n"
    let quirkyForwarded = "HTTP/1.1 206 Partial  Stuff\r\ncontent-range: bytes 0-99999/200000\r\nX-Pad:   three  \r\nX-Dup: 1\r\nx-dup: 2\r\nX-Fold: one two\r\nETag: \"e\"\r\nContent-Length: 100000\r\n\r\n"

    @Test func aLargeResponsesHeadIsSentByTheUpstreamThreadByteForByte() async throws {
        try origin.respond("big", with: quirky + body)
        let proxy = try await ProxyHarness()
        let r = try roundTrip(proxy.port, get("big"), bodyCount: 100_000)
        #expect(r.head == quirkyForwarded)
        #expect(r.body == body)
        #expect(proxy.server.directResponseHeads == 1)
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.exchanges.first)
        #expect(ex.responseLines.map(\.raw).joined() == quirky)
        #expect(ex.bytesReceived == 100_000)
    }

    @Test func aSmallResponseGoesTheUsualWayWithTheSameHead() async throws {
        let small = quirky.replacingOccurrences(of: "Content-Length: 100000", with: "Content-Length: 10")
        try origin.respond("small", with: small + "0123456789")
        let proxy = try await ProxyHarness()
        let r = try roundTrip(proxy.port, get("small"), bodyCount: 10)
        #expect(r.head == quirkyForwarded.replacingOccurrences(of: "Content-Length: 100000", with: "Content-Length: 10"))
        #expect(r.body == "0123456789")
        #expect(proxy.server.directResponseHeads == 0)
        await proxy.server.stop()
    }

    @Test func keepAliveAndPipelinedResponsesStayInOrder() async throws {
        try origin.respond("k1", with: "HTTP/1.1 200 One\r\nContent-Length: 100000\r\n\r\n" + body)
        try origin.respond("k2", with: "HTTP/1.1 200 Two\r\nContent-Length: 100000\r\n\r\n" + String(body.reversed()))
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port)
        // One after the other on one connection, then two sent at once.
        for name in ["k1", "k2"] {
            try client.send(get(name))
            #expect(try client.readHead().latin1 == "HTTP/1.1 200 \(name == "k1" ? "One" : "Two")\r\nContent-Length: 100000\r\n\r\n")
            #expect(try client.read(count: 100_000).latin1 == (name == "k1" ? body : String(body.reversed())))
        }
        try client.send(get("k2") + get("k1"))
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 Two\r\nContent-Length: 100000\r\n\r\n")
        #expect(try client.read(count: 100_000).latin1 == String(body.reversed()))
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 One\r\nContent-Length: 100000\r\n\r\n")
        #expect(try client.read(count: 100_000).latin1 == body)
        client.close()
        #expect(proxy.server.directResponseHeads >= 2, "\(proxy.server.directResponseHeads) heads sent directly")
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == 4)
        #expect(capture.exchanges.allSatisfy { $0.bytesReceived == 100_000 && $0.status == 200 })
        #expect(capture.events("cancel").isEmpty && capture.events("error").isEmpty)
    }

    @Test func headChunkedAndHTTP10Responses() async throws {
        try origin.respond("h", with: "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        var chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        chunked += String(100_000, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
        try origin.respond("c", with: chunked)
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port)
        try client.send(get("h", method: "HEAD"))
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        // Then a chunked body on the same connection: re-chunked by rangetap, the same bytes.
        try client.send(get("c"))
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        var received = ""
        while true {
            var sizeLine = ""
            while !sizeLine.hasSuffix("\r\n") && sizeLine.count < 20 { sizeLine += try client.read(count: 1).latin1 }
            // ("\r\n" is one Character in Swift.)
            let size = try #require(Int(sizeLine.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16), "chunk size line \(sizeLine.debugDescription) after \(received.count) bytes")
            if size == 0 { break }
            received += try client.read(count: size).latin1
            _ = try client.read(count: 2)
        }
        #expect(received == body)
        client.close()
        // HTTP/1.0: the machine's head (Connection: close, as the body is close-delimited or not kept alive).
        let old = try RawClient(port: proxy.port)
        try old.send(get("c", version: "HTTP/1.0"))
        #expect(try old.readHead().latin1 == "HTTP/1.1 200 OK\r\n\r\n")
        #expect(try old.readToClose().latin1 == body)
        old.close()
        #expect(proxy.server.directResponseHeads == 3)
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == 3)
    }

    @Test func interimHeadsAndShapedLinksKeepTheUsualWay() async throws {
        let early = "HTTP/1.1 103 Early Hints\r\nLink: </a.mp4>; rel=preload\r\n\r\n"
        try origin.respond("early", with: early + "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + body)
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port)
        try client.send(get("early"))
        #expect(try client.readHead().latin1 == early)
        #expect(try client.readHead().latin1 == "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        #expect(try client.read(count: 100_000).latin1 == body)
        client.close()
        #expect(proxy.server.directResponseHeads == 0)
        await proxy.server.stop()

        try origin.respond("big", with: quirky + body)
        let shaped = try await ProxyHarness { $0.shape = try? ShapeSpec(parsing: "rate=400mbit") }
        let r = try roundTrip(shaped.port, get("big"), bodyCount: 100_000)
        #expect(r.head == quirkyForwarded)
        #expect(r.body == body)
        #expect(shaped.server.directResponseHeads == 0)
        await shaped.server.stop()
    }
}
