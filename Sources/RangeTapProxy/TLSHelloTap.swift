import NIOCore
import RangeTapTLS

/// Sits between the client socket and TLS in an intercepted tunnel: counts encrypted bytes
/// each way (the tunnel's `up` and `down`) and reads the ClientHello and ServerHello as they
/// pass (``TLSHello``), for the `tls` event. Passes every byte on unchanged.
final class TLSHelloTap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Largest first record kept while waiting for it to be whole (a TLS record is at most
    /// 16 KiB plus its header; a little more for lenient peers).
    private static let helloLimit = 18 * 1024

    private(set) var bytesIn: Int64 = 0
    private(set) var bytesOut: Int64 = 0
    private(set) var client: TLSHello.Client?
    private(set) var server: TLSHello.Server?
    private var clientBytes: [UInt8]? = []
    private var serverBytes: [UInt8]? = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        bytesIn += Int64(buffer.readableBytes)
        if var pending = clientBytes {
            pending += buffer.readableBytesView.prefix(Self.helloLimit - pending.count)
            switch TLSHello.client(pending) {
            case .needMore: clientBytes = pending.count < Self.helloLimit ? pending : nil
            case .parsed(let hello): client = hello; clientBytes = nil
            case .notTLS: clientBytes = nil
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        bytesOut += Int64(buffer.readableBytes)
        if var pending = serverBytes {
            pending += buffer.readableBytesView.prefix(Self.helloLimit - pending.count)
            switch TLSHello.server(pending) {
            case .needMore: serverBytes = pending.count < Self.helloLimit ? pending : nil
            case .parsed(let hello): server = hello; serverBytes = nil
            case .notTLS: serverBytes = nil
            }
        }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension TLSHelloTap: Sendable {}
