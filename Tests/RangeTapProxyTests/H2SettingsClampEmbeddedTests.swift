import NIOCore
import NIOEmbedded
@testable import RangeTapProxy
import Testing

/// `H2SettingsClamp` alone on an `EmbeddedChannel`: whatever way a client's bytes are split into
/// reads, what comes out is what went in, but for `SETTINGS_HEADER_TABLE_SIZE` values above the
/// cap, lowered to it.
@Suite struct H2SettingsClampEmbeddedTests {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [
            UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), type, flags,
            UInt8(stream >> 24), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF),
        ] + payload
    }

    static func setting(_ id: UInt16, _ value: UInt32) -> [UInt8] {
        [
            UInt8(id >> 8), UInt8(id & 0xFF), UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF),
            UInt8(value & 0xFF),
        ]
    }

    /// Feeds `bytes` in reads of `size` bytes; returns all that came out.
    func run(_ bytes: [UInt8], readSize size: Int) throws -> [UInt8] {
        let channel = EmbeddedChannel(handler: H2SettingsClamp())
        var i = 0
        while i < bytes.count {
            try channel.writeInbound(ByteBuffer(bytes: bytes[i..<min(i + size, bytes.count)]))
            i += size
        }
        var out: [UInt8] = []
        while var b = try channel.readInbound(as: ByteBuffer.self) { out += b.readBytes(length: b.readableBytes)! }
        _ = try channel.finish()
        return out
    }

    @Test func onlyAnOversizedHeaderTableSizeChanges() throws {
        let data = Self.frame(type: 0, stream: 1, Array(repeating: 7, count: 40))
        let huge = Self.frame(type: 4, Self.setting(3, 100) + Self.setting(1, 0x7FFF_FFFF) + Self.setting(4, 65535))
        let small = Self.frame(type: 4, Self.setting(1, 4096))
        let ack = Self.frame(type: 4, flags: 1, [])
        let input = Self.preface + huge + data + ack + small + data
        let expected =
            Self.preface
            + Self.frame(
                type: 4,
                Self.setting(3, 100) + Self.setting(1, H2SettingsClamp.maxHeaderTableSize) + Self.setting(4, 65535))
            + data + ack + small + data
        for size in [1, 2, 5, 9, 10, 23, 24, 25, 33, 64, input.count] {
            #expect(try run(input, readSize: size) == expected, "reads of \(size) bytes")
        }
    }
}
