import NIOCore
import NIOHPACK
import NIOHTTP2

/// Builds an HTTP/2 client connection's pipeline after whatever carries its bytes (the socket,
/// or TLS inside an intercepted tunnel): ``H2ReadCopier`` → ``H2WireTap`` → ``H2SettingsClamp`` → `NIOHTTP2Handler`
/// (its frame delegate the connection's ``H2FrameLedger``) → ``H2FrameTap`` →
/// `HTTP2StreamMultiplexer` (one ``H2StreamHandler`` per stream) → ``H2ConnectionHandler``.
enum H2Pipeline {
    /// Streams a client may open at once: NIOHTTP2's own limit until the client acknowledged
    /// the SETTINGS (128 was advertised while 100 were enforced: 128 streams in a client's first
    /// write got a GOAWAY), so the limit advertised is the limit enforced.
    static let maxConcurrentStreams = 100
    /// How far ahead of rangetap's reading a client may send a stream's request body (the
    /// stream's receive window NIOHTTP2 keeps). While rangetap holds an upload back (its
    /// ``RequestBody`` queue is full) the client can send this much more, which NIOHTTP2 keeps:
    /// 1 MiB let 100 uploads to an origin that read nothing hold 103 MiB.
    static let streamReceiveWindow = 256 * 1024

    /// Adds the handlers. Called on the channel's event loop.
    static func install(
        on channel: any Channel, shared: RecordingContext, wire: ClientWire, session: ClientSession,
        inherited: ClientSession.Inherited
    ) throws {
        let sync = channel.pipeline.syncOperations
        let state = NIOLoopBound(
            H2ConnectionState(inherited, wire: wire, share: shared.configuration.connectionShare),
            eventLoop: channel.eventLoop)
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
        try sync.addHandler(
            NIOHTTP2Handler(mode: .server, frameDelegate: state.value.ledger, connectionConfiguration: connection))
        try sync.addHandler(H2FrameTap(state: state.value))
        try sync.addHandler(
            HTTP2StreamMultiplexer(
                mode: .server, channel: channel, targetWindowSize: streamReceiveWindow,
                inboundStreamInitializer: { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(
                            H2StreamHandler(shared: shared, state: state.value, session: session))
                    }
                }))
        try sync.addHandler(H2ConnectionHandler(shared: shared, state: state.value))
    }
}
