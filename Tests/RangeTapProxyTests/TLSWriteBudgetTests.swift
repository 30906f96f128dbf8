import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import RangeTapCore
import RangeTapTLS
import RangeTapTestSupport
import Testing

/// `TLSWriteBudget` above a server `TLSHandler` on `EmbeddedChannel`s, a libssl client
/// decrypting: what leaves the TLS handler at each flush (the ciphertext buffer it encrypted the
/// flush into) stays within 32 KiB for the write patterns rangetap makes, and every byte arrives
/// in order.
@Suite(.timeLimit(.minutes(1))) struct TLSWriteBudgetTests {
    struct Rig {
        let server = EmbeddedChannel()
        let client = EmbeddedChannel()
        let budget: TLSWriteBudget?
    }

    /// TLS 1.2 and 1.3, as `TLSHandler.negotiatedVersion` numbers them.
    static let versions: [UInt16] = [0x0303, 0x0304]

    func rig(budget: Bool, maximumVersion: UInt16) throws -> Rig {
        let dir = Paths.temporaryDirectory("tls-budget")
        let ca = try CertificateAuthority.create(in: dir + "/ca")
        let contexts = InterceptContexts(leaves: try LeafCertificates(authority: ca))
        let r = Rig(budget: budget ? TLSWriteBudget() : nil)
        try r.server.pipeline.syncOperations.addHandler(
            TLSHandler(context: try contexts.context(for: "media.example.com"), role: .server))
        if let b = r.budget { try r.server.pipeline.syncOperations.addHandler(b) }
        let client = try TLSContext.client(
            verify: true, extraCAFile: ca.certificatePath, maximumVersion: maximumVersion)
        try r.client.pipeline.syncOperations.addHandler(
            TLSHandler(context: client, role: .client(serverName: "media.example.com")))
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
        r.server.connect(to: address, promise: nil)
        r.client.connect(to: address, promise: nil)
        _ = try pump(r)
        return r
    }

    /// Moves bytes both ways until neither side has anything to send; returns the sizes of the
    /// server's network writes (one per flush of its TLS handler).
    func pump(_ r: Rig) throws -> [Int] {
        var serverWrites: [Int] = []
        for _ in 0..<10_000 {
            r.server.embeddedEventLoop.run()
            r.client.embeddedEventLoop.run()
            var moved = false
            while let b = try r.client.readOutbound(as: ByteBuffer.self) {
                moved = true
                try r.server.writeInbound(b)
            }
            while let b = try r.server.readOutbound(as: ByteBuffer.self) {
                moved = true
                serverWrites.append(b.readableBytes)
                try r.client.writeInbound(b)
            }
            if !moved { break }
        }
        return serverWrites
    }

    /// The plaintext the client decrypted, in order.
    func received(_ r: Rig) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while var b = try r.client.readInbound(as: ByteBuffer.self) {
            bytes += b.readBytes(length: b.readableBytes) ?? []
        }
        return bytes
    }

    /// Writes `sizes` as separate buffers of a known byte pattern, then one flush; returns the
    /// server's network writes and whether every write's promise succeeded.
    func send(_ r: Rig, sizes: [Int]) throws -> (writes: [Int], sent: [UInt8], succeeded: Bool) {
        var sent: [UInt8] = []
        var futures: [EventLoopFuture<Void>] = []
        for size in sizes {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: (sent.count + $0) &* 131 >> 3) }
            sent += bytes
            futures.append(r.server.write(r.server.allocator.buffer(bytes: bytes)))
        }
        r.server.flush()
        let writes = try pump(r)
        let succeeded = NIOLockedValueBox(0)
        for f in futures { f.whenSuccess { succeeded.withLockedValue { $0 += 1 } } }
        r.server.embeddedEventLoop.run()
        return (writes, sent, succeeded.withLockedValue { $0 } == futures.count)
    }

    /// What rangetap writes: one 1 MiB round; an HTTP/1 head and eight 32 KiB slices; HTTP/2's
    /// 9-byte frame headers each followed by a 16 KiB DATA payload; a slice of one byte.
    static let patterns: [[Int]] = [
        [1 << 20],
        [311] + Array(repeating: 32 * 1024, count: 8),
        Array(repeating: [9, 16_384], count: 40).flatMap { $0 },
        [1, 1, 32 * 1024 - 3, 1],
    ]

    @Test(arguments: Self.versions)
    func noFlushOutgrowsThirtyTwoKiBAndEveryByteArrivesInOrder(version: UInt16) throws {
        let r = try rig(budget: true, maximumVersion: version)
        for sizes in Self.patterns {
            let (writes, sent, ok) = try send(r, sizes: sizes)
            #expect(!writes.isEmpty)
            #expect(
                writes.allSatisfy { $0 <= TLSWriteBudget.outboundBufferSize },
                "\(version) \(sizes.prefix(3))…: largest flush \(writes.max() ?? 0) B of ciphertext")
            #expect(try received(r) == sent)
            #expect(ok, "every write's promise succeeds once its bytes are on the wire")
        }
        #expect((r.budget?.addedFlushes ?? 0) > 30)
    }

    /// Without the budget one flush carries the whole round: one buffer of its ciphertext, held
    /// beside the plaintext until the socket takes it.
    @Test func withoutTheBudgetOneFlushCarriesTheWholeRound() throws {
        let r = try rig(budget: false, maximumVersion: 0x0304)
        let (writes, sent, _) = try send(r, sizes: [256 * 1024])
        #expect(writes.max() ?? 0 > 256 * 1024)
        #expect(try received(r) == sent)
    }

    /// The arithmetic: the plaintext said to fit a room makes no more ciphertext than the room,
    /// and one byte more would not fit.
    @Test func plaintextFittingARoomIsTheMostThatFits() {
        var g = SeededGenerator(seed: 15)
        let rooms =
            [0, 1, 29, 30, 16_413, 16_414, 16_442, 32_768, 49_000]
            + (0..<5_000).map { _ in Int.random(in: 0...200_000, using: &g) }
        for room in rooms {
            let p = TLSWriteBudget.plaintext(fitting: room)
            if p > 0 { #expect(TLSWriteBudget.ciphertext(of: p) <= room, "room \(room): \(p)") }
            #expect(TLSWriteBudget.ciphertext(of: p + 1) > room, "room \(room): \(p) + 1 would fit too")
        }
        #expect(TLSWriteBudget.plaintext(fitting: 32 * 1024) == 32_710)
        #expect(TLSWriteBudget.plaintext(fitting: TLSWriteBudget.defaultCapacity) == 31_686)
    }
}
