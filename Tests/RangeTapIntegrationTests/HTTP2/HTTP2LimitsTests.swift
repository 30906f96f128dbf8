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
        try Data("big".utf8).write(to: URL(fileURLWithPath: dir + "/big.txt"))
        // nginx reads its config in 4 KiB tokens: five fields of 3,500 bytes make the big head.
        let big = (1...5).map { "add_header X-Big\($0) \(String(repeating: "b", count: 3_500));" }.joined(
            separator: " ")
        nginx = try NginxServer(root: dir, extraServerConfig: "location = /big.txt { \(big) }")
    }

    /// One frame read from `client`: type, flags, stream, payload.
    func frame(_ client: RawClient) throws -> (type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) {
        let h = try client.read(count: 9)
        guard h.count == 9 else { throw TestFailure("the connection closed (\(h.count) bytes of a frame header)") }
        let length = Int(h[0]) << 16 | Int(h[1]) << 8 | Int(h[2])
        let stream = h[5...8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
        return (h[3], h[4], stream, length > 0 ? try client.read(count: length) : [])
    }

    /// A HEADERS frame for `GET path` on stream 1, ending the stream: HPACK with static-table
    /// names and literal values, no Huffman coding.
    func getHeaders(authority: String, path: String, stream: UInt8 = 1, padding: Int = 0) -> [UInt8] {
        var block: [UInt8] = [0x82, 0x86]  // :method GET, :scheme http
        block += [0x04, UInt8(path.utf8.count)] + Array(path.utf8)  // :path, literal
        block += [0x01, UInt8(authority.utf8.count)] + Array(authority.utf8)  // :authority, literal
        if padding > 0 {
            // x-pad: padding bytes, a literal name and value (lengths as 7-bit prefix integers).
            block +=
                [0x00, 5] + Array("x-pad".utf8) + Self.hpackLength(padding)
                + Array(repeating: UInt8(ascii: "a"), count: padding)
        }
        let n = block.count
        return [UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), 0x01, 0x05, 0, 0, 0, stream] + block
    }

    /// An HPACK string length with a 7-bit prefix, not Huffman-coded.
    static func hpackLength(_ n: Int) -> [UInt8] {
        guard n >= 127 else { return [UInt8(n)] }
        var out: [UInt8] = [127]
        var rest = n - 127
        while rest >= 128 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        return out + [UInt8(rest)]
    }

    /// Preface, SETTINGS and a request in one write, then nothing: the answer came only with
    /// the client's next frame, as the bytes held while the connection switched to HTTP/2 were
    /// passed on without the end of their read.
    @Test(.timeLimit(.minutes(1))) func aRequestSentWithThePrefaceIsAnsweredWithoutAnotherFrame() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 5)
        try client.send(
            Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
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
        try client.send(
            Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
                + [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 1, 0x7F, 0xFF, 0xFF, 0xFF]
                + getHeaders(authority: "127.0.0.1:\(nginx.port)", path: "/ok.txt"))
        var block: [UInt8]?
        for _ in 0..<20 where block == nil {
            let f = try frame(client)
            if f.type == 1, f.stream == 1 { block = f.payload }
        }
        let b = try #require(block, "no response HEADERS")
        // A dynamic table size update (001xxxxx, a 5-bit prefix integer) opens the block.
        let first: UInt8 = b.first ?? 0
        try #require(first & 0xE0 == 0x20, "no size update: \(b.prefix(8))")
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

    /// The header list limit rangetap advertises is the one it enforces (issue 37, item 13): it
    /// advertised 65,536 while NIOHTTP2 enforced 16 KiB until the client acknowledged the
    /// settings, so a 16.3 KB block in the first write got the whole connection a GOAWAY. Now it
    /// advertises 16 KiB, and a first request just under it is served.
    @Test(.timeLimit(.minutes(1))) func theAdvertisedHeaderListLimitIsTheEnforcedOne() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 5)
        try client.send(
            Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
                + getHeaders(authority: "127.0.0.1:\(nginx.port)", path: "/ok.txt", padding: 15_000))
        var advertised: UInt32?
        var status: String?
        var types: [UInt8] = []
        for _ in 0..<20 where status == nil {
            let f = try frame(client)
            types.append(f.type)
            if f.type == 4, f.flags & 1 == 0 {
                for i in stride(from: 0, to: f.payload.count - 5, by: 6)
                where f.payload[i] == 0 && f.payload[i + 1] == 6 {
                    advertised = f.payload[(i + 2)..<(i + 6)].reduce(0) { $0 << 8 | UInt32($1) }
                }
            }
            if f.type == 1, f.stream == 1 { status = "answered" }
        }
        #expect(advertised == 16_384, "SETTINGS_MAX_HEADER_LIST_SIZE \(advertised.map(String.init) ?? "absent")")
        #expect(status != nil && !types.contains(7), "frames \(types)")
        client.close()
        _ = try await proxy.stopAndRead()
    }

    /// A stream error ends that stream only (issue 37, item 13; RFC 9113 §5.4.2): a
    /// WINDOW_UPDATE of 0 on one stream ended every stream of the connection, without GOAWAY.
    @Test(.timeLimit(.minutes(1))) func aStreamErrorResetsOnlyItsStream() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, timeoutSeconds: 5)
        let authority = "127.0.0.1:\(nginx.port)"
        try client.send(
            Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
                + getHeaders(authority: authority, path: "/ok.txt", stream: 1)
                + getHeaders(authority: authority, path: "/ok.txt", stream: 3)
                + [0, 0, 4, 8, 0, 0, 0, 0, 3, 0, 0, 0, 0])  // WINDOW_UPDATE on stream 3, increment 0
        var reset3 = false
        var ended1 = false
        var types: [UInt8] = []
        for _ in 0..<30 where !(reset3 && ended1) {
            guard let f = try? frame(client) else {
                let capture = try await proxy.stopAndRead()
                Issue.record("the connection closed after frames \(types): \(capture.events("error"))")
                return
            }
            types.append(f.type)
            if f.type == 3, f.stream == 3 { reset3 = true }
            if f.stream == 1, f.type == 0 || f.type == 1, f.flags & 1 == 1 { ended1 = true }
        }
        #expect(reset3 && ended1, "frames \(types)")
        #expect(!types.contains(7), "no GOAWAY: \(types)")
        client.close()
        let capture = try await proxy.stopAndRead()
        #expect(capture.requests.contains { $0.outcome == .complete }, "stream 1's exchange ended")
    }

    /// A response head too large for one HTTP/2 frame (swift-nio-http2 writes no CONTINUATION
    /// frames) failed the client's whole connection ("UnableToSerializeFrame", no GOAWAY, recorded
    /// as the client's protocol error; issue 37, item 13). It is now a 502 on its stream, which
    /// says why; over HTTP/1.1 the same head passes.
    @Test(.timeLimit(.minutes(1))) func aResponseHeadTooLargeForOneFrameIsA502OnItsStream() async throws {
        let proxy = try await ProxyHarness()
        let h1 = try runCommand(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", proxy.url, "-D", "-", "-o", "/dev/null", nginx.url("big.txt")])
        #expect(
            h1.text.hasPrefix("HTTP/1.1 200") && h1.text.contains("X-Big5: " + String(repeating: "b", count: 3_500)),
            "HTTP/1.1 carries it")
        let r = try runCommand(
            try Paths.tool("python3"),
            [
                Paths.root + "/Tests/Clients/h2_request.py", "--proxy", "127.0.0.1:\(proxy.port)",
                "--authority", "127.0.0.1:\(nginx.port)", "--path", "/big.txt",
            ])
        try #require(r.status == 0, "\(r.stderr)")
        struct Out: Decodable {
            var status: Int?
            var body: String
        }
        let out = try JSONDecoder().decode(Out.self, from: r.stdout)
        #expect(out.status == 502 && out.body.contains("CONTINUATION"), "\(r.text)")
        let capture = try await proxy.stopAndRead()
        let errors = capture.events("error").compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(
            errors.count == 1 && errors.first?.kind == .upstream && errors.first?.status == 502,
            "\(errors.map(\.message))")
    }
}
