import CLibssl
import NIOCore
import NIOTLS

/// TLS on a channel, through the system's libssl: ciphertext below, plaintext above. The server
/// side terminates intercepted tunnels and `serve --tls`; the client side probes origins.
///
/// Above it, the handler reads `ByteBuffer`s of plaintext and sees
/// `TLSUserEvent.handshakeCompleted(negotiatedProtocol:)` once the handshake is done (before any
/// plaintext), as `ApplicationProtocolNegotiationHandler` expects. Writes before that wait.
///
/// How bytes move: libssl reads the ciphertext of a read straight from the buffer it came in,
/// and encrypts a flush's writes straight into one buffer sized for their ciphertext, which goes
/// to the socket: no buffer is kept between calls, so an idle connection holds only libssl's
/// session (its record buffers are released when empty, `SSL_MODE_RELEASE_BUFFERS`). Plaintext
/// read at once goes up in one buffer.
///
/// How it ends: a peer's close_notify is answered with rangetap's and the connection closed; a
/// peer that closes without one is reported as ``TLSHandlerError/uncleanShutdown`` (an error
/// above it, then `channelInactive`). Closing from above sends close_notify first. A failed
/// handshake sends libssl's alert, reports ``TLSHandlerError/handshakeFailed(reasons:verification:nameMismatch:)``
/// and closes. Event loop only.
public final class TLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    /// Which side of the handshake this end is.
    public enum Role: Sendable {
        /// Answers a client's hello.
        case server
        /// Sends the hello: SNI `serverName` (left out for an IP literal), against which a
        /// verifying context also checks the certificate.
        case client(serverName: String?)
    }

    private enum State {
        /// No byte of the handshake has moved yet.
        case idle
        case handshaking
        case open
        /// close_notify sent or received, or a failure: nothing more goes through libssl.
        case closed
    }

    /// The plaintext of one full record.
    static let recordSize = 16 * 1024

    private let context: TLSContext
    private let role: Role
    private var session: OpaquePointer?
    private var state = State.idle
    private var pending = CircularBuffer<(ByteBuffer, EventLoopPromise<Void>?)>()
    private var flushWaiting = false

    /// The version the handshake settled on (0x0303 TLS 1.2, 0x0304 TLS 1.3), once it has.
    public private(set) var negotiatedVersion: UInt16?

    /// TLS of `context`, as `role`.
    public init(context: TLSContext, role: Role) {
        self.context = context
        self.role = role
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        let server: Int32
        let name: String?
        switch role {
        case .server: (server, name) = (1, nil)
        case .client(let serverName): (server, name) = (0, serverName)
        }
        session = clibssl_session_new(self.context.pointer, server, name)
        if session == nil {
            state = .closed
            context.fireErrorCaught(TLSHandlerError.sessionUnavailable)
            context.close(promise: nil)
            return
        }
        if case .client = role, context.channel.isActive { startHandshake(context) }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        failPending(ChannelError.ioOnClosedChannel)
        clibssl_session_free(session)
        session = nil
        state = .closed
    }

    public func channelActive(context: ChannelHandlerContext) {
        if case .client = role, state == .idle { startHandshake(context) }
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        let unclean = state == .handshaking || state == .open
        state = .closed
        failPending(ChannelError.ioOnClosedChannel)
        if unclean { context.fireErrorCaught(TLSHandlerError.uncleanShutdown) }
        context.fireChannelInactive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session, state != .closed else { return }
        let input = unwrapInboundIn(data)
        var plaintext: ByteBuffer?
        var completed = false
        var ended = CLIBSSL_WANT_INPUT
        input.withUnsafeReadableBytes { raw in
            clibssl_session_set_input(session, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
            defer { clibssl_session_set_input(session, nil, 0) }
            if state == .idle || state == .handshaking {
                state = .handshaking
                ended = Int(clibssl_session_handshake(session))
                guard ended == CLIBSSL_DONE else { return }
                state = .open
                completed = true
            }
            ended = readPlaintext(
                session, allocator: context.channel.allocator, sizeHint: raw.count, into: &plaintext)
        }
        if ended == CLIBSSL_FAILED {
            fail(context, handshake: !completed && state == .handshaking)
            return
        }
        writeOutput(context)
        if completed { handshakeCompleted(context) }
        if let plaintext, state != .closed || ended == CLIBSSL_CLOSED {
            context.fireChannelRead(wrapInboundOut(plaintext))
        }
        if ended == CLIBSSL_CLOSED { closeNotifyReceived(context) }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard state != .closed else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        pending.append((unwrapOutboundIn(data), promise))
    }

    public func flush(context: ChannelHandlerContext) {
        switch state {
        case .open: encryptPending(context)
        case .idle, .handshaking: flushWaiting = true
        case .closed: context.flush()
        }
    }

    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode != .input else {
            context.close(mode: mode, promise: promise)
            return
        }
        if state == .open, let session {
            encryptPending(context)
            if Int(clibssl_session_shutdown(session)) == CLIBSSL_DONE { writeOutput(context) }
        }
        state = .closed
        failPending(ChannelError.ioOnClosedChannel)
        context.close(mode: .all, promise: promise)
    }

    // MARK: - The handshake

    private func startHandshake(_ context: ChannelHandlerContext) {
        guard let session else { return }
        state = .handshaking
        let ended = Int(clibssl_session_handshake(session))
        if ended == CLIBSSL_FAILED {
            fail(context, handshake: true)
            return
        }
        writeOutput(context)
    }

    private func handshakeCompleted(_ context: ChannelHandlerContext) {
        guard let session else { return }
        negotiatedVersion = UInt16(truncatingIfNeeded: clibssl_session_version(session))
        var length = 0
        let alpn = clibssl_session_alpn(session, &length).map {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        context.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: alpn))
        if flushWaiting, state == .open {
            flushWaiting = false
            encryptPending(context)
        }
    }

    // MARK: - Bytes

    /// Decrypts what the lent input holds, into one buffer. The buffer starts at the size of the
    /// input (the plaintext of whole records in it is smaller) and doubles when a record that
    /// began in an earlier read needs more: a client's small requests get small buffers, which
    /// is what the handlers above keep between reads.
    private func readPlaintext(
        _ session: OpaquePointer, allocator: ByteBufferAllocator, sizeHint: Int, into plaintext: inout ByteBuffer?
    ) -> Int {
        while true {
            var status = CLIBSSL_WANT_INPUT
            if plaintext == nil { plaintext = allocator.buffer(capacity: min(max(sizeHint, 256), Self.recordSize)) }
            if plaintext!.writableBytes == 0 {
                plaintext!.reserveCapacity(minimumWritableBytes: min(plaintext!.capacity, Self.recordSize))
            }
            plaintext!.writeWithUnsafeMutableBytes(minimumWritableBytes: 1) { raw in
                var count = 0
                status = Int(
                    clibssl_session_read(session, raw.bindMemory(to: UInt8.self).baseAddress!, raw.count, &count))
                return count
            }
            guard status == CLIBSSL_DONE else {
                if plaintext?.readableBytes == 0 { plaintext = nil }
                return status
            }
        }
    }

    /// Encrypts the waiting writes into one buffer and sends it; their promises complete with it.
    private func encryptPending(_ context: ChannelHandlerContext) {
        flushWaiting = false
        guard let session, !pending.isEmpty else {
            context.flush()
            return
        }
        var size = 0
        for (buffer, _) in pending { size += TLSWriteBudget.ciphertext(of: buffer.readableBytes) }
        var out = context.channel.allocator.buffer(capacity: size + TLSWriteBudget.recordOverhead)
        var first: EventLoopPromise<Void>?
        var others: [EventLoopPromise<Void>] = []
        while let (buffer, promise) = pending.popFirst() {
            var status = CLIBSSL_DONE
            out.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { raw in
                clibssl_session_set_output(session, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
                defer { clibssl_session_set_output(session, nil, 0) }
                status = buffer.withUnsafeReadableBytes { bytes in
                    Int(clibssl_session_write(session, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count))
                }
                return clibssl_session_output_used(session)
            }
            Self.takeSpill(session, into: &out)
            guard status == CLIBSSL_DONE else {
                let error = TLSHandlerError.failed(reasons: TLSContext.errorReasons())
                promise?.fail(error)
                fail(context, with: error)
                return
            }
            if let promise {
                if first == nil { first = promise } else { others.append(promise) }
            }
        }
        if !others.isEmpty, let all = first {
            let combined = context.eventLoop.makePromise(of: Void.self)
            let rest = others
            combined.futureResult.whenComplete { result in
                all.completeWith(result)
                for promise in rest { promise.completeWith(result) }
            }
            first = combined
        }
        context.write(wrapOutboundOut(out), promise: first)
        context.flush()
    }

    /// Sends what libssl wrote outside a write (handshake messages, alerts, close_notify,
    /// tickets), if anything.
    private func writeOutput(_ context: ChannelHandlerContext) {
        guard let session, clibssl_session_spill_length(session) > 0 else { return }
        var out = context.channel.allocator.buffer(capacity: clibssl_session_spill_length(session))
        Self.takeSpill(session, into: &out)
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    private static func takeSpill(_ session: OpaquePointer, into out: inout ByteBuffer) {
        let length = clibssl_session_spill_length(session)
        guard length > 0 else { return }
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
            clibssl_session_take_spill(session, raw.bindMemory(to: UInt8.self).baseAddress!)
            return length
        }
    }

    // MARK: - Endings

    private func closeNotifyReceived(_ context: ChannelHandlerContext) {
        guard let session else { return }
        if state == .open || state == .handshaking {
            if Int(clibssl_session_shutdown(session)) == CLIBSSL_DONE { writeOutput(context) }
        }
        state = .closed
        failPending(ChannelError.outputClosed)
        context.close(promise: nil)
    }

    private func fail(_ context: ChannelHandlerContext, handshake: Bool) {
        let reasons = TLSContext.errorReasons()
        if handshake, let session {
            var mismatch: Int32 = 0
            let verification = clibssl_session_verify_error(session, &mismatch).map { String(cString: $0) }
            fail(
                context,
                with: .handshakeFailed(reasons: reasons, verification: verification, nameMismatch: mismatch != 0))
        } else {
            fail(context, with: .failed(reasons: reasons))
        }
    }

    private func fail(_ context: ChannelHandlerContext, with error: TLSHandlerError) {
        // The alert libssl wrote goes out before the connection closes.
        writeOutput(context)
        state = .closed
        failPending(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failPending(_ error: any Error) {
        while let (_, promise) = pending.popFirst() { promise?.fail(error) }
        flushWaiting = false
    }
}

@available(*, unavailable)
extension TLSHandler: Sendable {}
