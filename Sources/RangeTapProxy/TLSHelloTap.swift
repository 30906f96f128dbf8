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

    private(set) var bytesIn: Int64 = 0
    private(set) var bytesOut: Int64 = 0
    private var clientHello = FirstRecord(parse: TLSHello.client)
    private var serverHello = FirstRecord(parse: TLSHello.server)

    /// What the client's hello offered, once read.
    var client: TLSHello.Client? { clientHello.value }
    /// What the server's hello chose, once read.
    var server: TLSHello.Server? { serverHello.value }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        bytesIn += Int64(buffer.readableBytes)
        clientHello.feed(buffer)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        bytesOut += Int64(buffer.readableBytes)
        serverHello.feed(buffer)
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension TLSHelloTap: Sendable {}

/// The first TLS record of one direction, gathered until it is whole and read once.
private struct FirstRecord<T: Sendable & Equatable> {
    /// Largest first record kept while waiting for it to be whole (a TLS record is at most
    /// 16 KiB plus its header; a little more for lenient peers).
    static var limit: Int { 18 * 1024 }

    let parse: ([UInt8]) -> TLSHello.Parse<T>
    private(set) var value: T?
    /// Bytes so far; nil once read, or given up on.
    private var pending: [UInt8]? = []

    init(parse: @escaping ([UInt8]) -> TLSHello.Parse<T>) {
        self.parse = parse
    }

    mutating func feed(_ buffer: ByteBuffer) {
        guard var bytes = pending else { return }
        bytes += buffer.readableBytesView.prefix(Self.limit - bytes.count)
        switch parse(bytes) {
        case .needMore: pending = bytes.count < Self.limit ? bytes : nil
        case .parsed(let v):
            value = v
            pending = nil
        case .notTLS: pending = nil
        }
    }
}
