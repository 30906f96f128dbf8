import Foundation
import RangeTapCore
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// HTTP/2 as a raw-socket client speaks it (issue 37, item 13).
@Suite(.serialized)
struct HTTP2LimitsTests {
    let nginx: NginxServer

    init() throws {
        let dir = Paths.temporaryDirectory("h2-limits-www")
        try Data("ok".utf8).write(to: URL(fileURLWithPath: dir + "/ok.txt"))
        nginx = try NginxServer(root: dir)
    }

    /// One frame read from `client`: type, flags, stream, payload.
    func frame(_ client: RawClient) throws -> (type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) {
        let h = try client.read(count: 9)
        let length = Int(h[0]) << 16 | Int(h[1]) << 8 | Int(h[2])
        let stream = h[5...8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
        return (h[3], h[4], stream, length > 0 ? try client.read(count: length) : [])
    }

    /// A HEADERS frame for `GET path` on stream 1, ending the stream: HPACK with static-table
    /// names and literal values, no Huffman coding.
    func getHeaders(authority: String, path: String) -> [UInt8] {
        var block: [UInt8] = [0x82, 0x86]  // :method GET, :scheme http
        block += [0x04, UInt8(path.utf8.count)] + Array(path.utf8)  // :path, literal
        block += [0x01, UInt8(authority.utf8.count)] + Array(authority.utf8)  // :authority, literal
        let n = block.count
        return [UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), 0x01, 0x05, 0, 0, 0, 1] + block
    }

    /// Preface, SETTINGS and a request in one write, then nothing: the answer came only with
    /// the client's next frame, as the bytes held while the connection switched to HTTP/2 were
    /// passed on without the end of their read.
    @Test(.timeLimit(.minutes(1))) func aRequestSentWithThePrefaceIsAnsweredWithoutAnotherFrame() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 5)
        try client.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
            + getHeaders(authority: "127.0.0.1:\(nginx.port)", path: "/ok.txt"))
        var types: [UInt8] = []
        var body: [UInt8] = []
        var ended = false
        for _ in 0..<20 where !ended {
            let f = try frame(client)
            types.append(f.type)
            if f.stream == 1, f.type == 0 { body += f.payload }
            if f.stream == 1, f.type == 0 || f.type == 1, f.flags & 1 == 1 { ended = true }
        }
        #expect(types.contains(1) && ended && body == Array("ok".utf8), "frames \(types)")
        #expect(types.contains(4), "the server's SETTINGS (and the ACK of the client's)")
        client.close()
        _ = try await proxy.stopAndRead()
    }

    /// A client announcing `SETTINGS_HEADER_TABLE_SIZE` 2³¹−1 (issue 37, item 9) made the
    /// proxy's HPACK encoder keep every response header for the connection's life: the first
    /// response's header block told the client the table was now 2³¹−1 bytes. Now the encoder's
    /// table is capped: the size update it sends is the cap.
    @Test(.timeLimit(.minutes(1))) func aHugeHeaderTableSizeIsCapped() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 5)
        try client.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
            + [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 1, 0x7F, 0xFF, 0xFF, 0xFF]
            + getHeaders(authority: "127.0.0.1:\(nginx.port)", path: "/ok.txt"))
        var block: [UInt8]?
        for _ in 0..<20 where block == nil {
            let f = try frame(client)
            if f.type == 1, f.stream == 1 { block = f.payload }
        }
        let b = try #require(block, "no response HEADERS")
        // A dynamic table size update (001xxxxx, a 5-bit prefix integer) opens the block.
        try #require(b.first.map { $0 & 0xE0 == 0x20 } == true, "no size update: \(b.prefix(8))")
        var size = UInt64(b[0] & 0x1F)
        if size == 31 {
            var shift: UInt64 = 0
            for byte in b.dropFirst() {
                size += UInt64(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
        }
        #expect(size <= UInt64(H2SettingsClamp.maxHeaderTableSize), "the encoder's table may grow to \(size) bytes")
        client.close()
        _ = try await proxy.stopAndRead()
    }
}
