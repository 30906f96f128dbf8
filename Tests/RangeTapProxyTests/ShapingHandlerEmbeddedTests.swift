import Foundation
import NIOCore
import NIOEmbedded
import RangeTapCore
@testable import RangeTapProxy
import Testing

/// `ShapingHandler` alone on an `EmbeddedChannel`: writes wait for the link, leave in order and
/// in slices, complete their promise when they reached the socket, and a close waits for them.
///
/// The link runs on the recording's monotonic clock and the handler's timer on the event loop:
/// the tests let real time pass, then advance the `EmbeddedEventLoop` by as much.
@Suite(.serialized) struct ShapingHandlerEmbeddedTests {
    private func channel(_ spec: String) throws -> EmbeddedChannel {
        let control = ShapeControl(spec: try ShapeSpec(parsing: spec), clock: MonotonicClock())
        return EmbeddedChannel(handler: ShapingHandler(control: control))
    }

    /// Lets `ms` milliseconds pass for the link's clock and for the channel's event loop.
    private func pass(_ ms: Int64, _ channel: EmbeddedChannel) {
        usleep(useconds_t(ms * 1000))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(ms))
    }

    private func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) }
    }

    /// Every buffer written to the socket so far, in order.
    private func written(_ channel: EmbeddedChannel) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while var b = try channel.readOutbound(as: ByteBuffer.self) {
            out.append(b.readBytes(length: b.readableBytes)!)
        }
        return out
    }

    @Test func anUnshapedLinkWritesAtOnce() throws {
        let channel = EmbeddedChannel(
            handler: ShapingHandler(control: ShapeControl(spec: ShapeSpec(), clock: MonotonicClock())))
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(ByteBuffer(bytes: bytes(100_000)), promise: promise)
        #expect(try written(channel).joined().elementsEqual(bytes(100_000)))
        try promise.futureResult.wait()
        _ = try? channel.finish()
    }

    @Test func aWriteWaitsForTheLatency() throws {
        let channel = try channel("latency=80ms")
        let promise = channel.eventLoop.makePromise(of: Void.self)
        var done = false
        promise.futureResult.assumeIsolated().whenSuccess { done = true }
        channel.writeAndFlush(ByteBuffer(string: "hello"), promise: promise)
        #expect(try written(channel).isEmpty, "nothing before the latency")
        #expect(!done, "its promise waits for the socket")
        pass(20, channel)
        #expect(try written(channel).isEmpty)
        pass(80, channel)
        #expect(try written(channel) == [Array("hello".utf8)])
        #expect(done)
        _ = try? channel.finish()
    }

    @Test func aRateLeavesInSlicesInOrder() throws {
        // 800 kbit/s: 100 kB/s, so 14,600 bytes take 146 ms, in slices of 1460 (the floor).
        let channel = try channel("rate=800kbit")
        let data = bytes(14_600)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        var done = false
        promise.futureResult.assumeIsolated().whenSuccess { done = true }
        channel.writeAndFlush(ByteBuffer(bytes: data), promise: promise)
        let start = ContinuousClock.now
        var pieces: [[UInt8]] = []
        var sawPartWithoutCompletion = false
        while pieces.joined().count < data.count, ContinuousClock.now - start < .seconds(5) {
            pass(10, channel)
            pieces += try written(channel)
            if !pieces.isEmpty, pieces.joined().count < data.count, !done { sawPartWithoutCompletion = true }
        }
        let took = ContinuousClock.now - start
        #expect(Array(pieces.joined()) == data)
        #expect(pieces.count == 10)
        #expect(pieces.allSatisfy { $0.count == 1460 })
        #expect(took >= .milliseconds(130), "\(took)")
        #expect(sawPartWithoutCompletion, "the promise completes with the last slice, not the first")
        #expect(done)
        _ = try? channel.finish()
    }

    @Test func aCloseWaitsForWhatIsQueued() throws {
        let channel = try channel("latency=60ms")
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.writeAndFlush(ByteBuffer(string: "last words"), promise: nil)
        var closed = false
        channel.close().assumeIsolated().whenComplete { _ in closed = true }
        #expect(!closed, "the queued bytes go first")
        #expect(channel.isActive)
        pass(80, channel)
        #expect(try written(channel) == [Array("last words".utf8)])
        #expect(closed)
        #expect(!channel.isActive)
    }

    @Test func removingTheHandlerFailsWhatItHeld() throws {
        let channel = try channel("latency=1s")
        let handler = try channel.pipeline.syncOperations.handler(type: ShapingHandler.self)
        let queued = channel.eventLoop.makePromise(of: Void.self)
        let unflushed = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(ByteBuffer(string: "queued"), promise: queued)
        channel.write(ByteBuffer(string: "unflushed"), promise: unflushed)
        try channel.pipeline.syncOperations.removeHandler(handler).wait()
        for promise in [queued, unflushed] {
            #expect(throws: ChannelError.ioOnClosedChannel) { try promise.futureResult.wait() }
        }
        #expect(try written(channel).isEmpty)
        _ = try? channel.finish()
    }
}
