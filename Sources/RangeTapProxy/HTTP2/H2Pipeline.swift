import NIOCore
import NIOHPACK
import NIOHTTP2

/// Builds an HTTP/2 client connection's pipeline after whatever carries its bytes (the socket,
/// or TLS inside an intercepted tunnel): ``H2ReadCopier`` → ``H2WireTap`` → ``H2SettingsClamp`` → `NIOHTTP2Handler`
/// (its frame delegate the connection's ``H2FrameLedger``) → ``H2FrameTap`` →
/// `HTTP2StreamMultiplexer` (one ``H2StreamHandler`` per stream) → ``H2ConnectionHandler``.
enum H2Pipeline {
    /// Streams a client may open at once.
    static let maxConcurrentStreams = 128

    /// Adds the handlers. Called on the channel's event loop.
    static func install(on channel: any Channel, shared: RecordingContext, wire: ClientWire, session: ClientSession, inherited: ClientSession.Inherited) throws {
        let sync = channel.pipeline.syncOperations
        let state = NIOLoopBound(H2ConnectionState(inherited, wire: wire, share: shared.configuration.connectionShare), eventLoop: channel.eventLoop)
        try sync.addHandler(H2ReadCopier())
        try sync.addHandler(H2WireTap(ledger: state.value.ledger))
        try sync.addHandler(H2SettingsClamp())
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
            // What NIOHTTP2's HPACK decoder enforces until the client acknowledged these
            // settings (a larger value took effect only then: a bigger first request got a
            // GOAWAY): the limit advertised is the limit enforced.
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
        // Content-Length is the origin's to get right or wrong; rangetap records, not polices it.
        connection.contentLengthValidation = .disabled
        try sync.addHandler(NIOHTTP2Handler(mode: .server, frameDelegate: state.value.ledger, connectionConfiguration: connection))
        try sync.addHandler(H2FrameTap(state: state.value))
        try sync.addHandler(HTTP2StreamMultiplexer(mode: .server, channel: channel, targetWindowSize: 1 << 20, inboundStreamInitializer: { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(H2StreamHandler(shared: shared, state: state.value, session: session))
            }
        }))
        try sync.addHandler(H2ConnectionHandler(shared: shared, state: state.value))
    }
}
