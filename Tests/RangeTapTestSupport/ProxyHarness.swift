import Foundation
import Logging
import RangeTapCore
import RangeTapProxy

/// A recording proxy started in-process on a free port, with its capture in a temporary directory.
public final class ProxyHarness: @unchecked Sendable {
    /// The proxy.
    public let server: ProxyServer
    /// The capture directory.
    public let capturePath: String
    /// Its port.
    public let port: Int

    /// Starts a proxy; `configure` may change the configuration first.
    public init(_ configure: (inout ProxyConfiguration) -> Void = { _ in }) async throws {
        var config = ProxyConfiguration(listenPort: 0, capturePath: Paths.temporaryDirectory("capture") + "/test.rtap")
        configure(&config)
        capturePath = config.capturePath
        var logger = Logger(label: "rangetap.test")
        logger.logLevel = .critical
        server = try ProxyServer(configuration: config, logger: logger)
        port = try await server.start()
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The intercepting CA's certificate file, when the proxy intercepts HTTPS.
    public var caCertificate: String? { server.certificateAuthority?.certificatePath }

    /// curl arguments that make curl trust the intercepting CA (none without one).
    public var curlTrust: [String] { caCertificate.map { ["--cacert", $0] } ?? [] }

    /// Stops the proxy (closing the capture) and reads the capture back.
    public func stopAndRead() async throws -> RecordedCapture {
        await server.stop()
        return try RecordedCapture(path: capturePath)
    }
}

/// A capture read back for assertions.
public struct RecordedCapture {
    /// The reader.
    public let reader: CaptureReader
    /// All events after the header.
    public let events: [CaptureEvent]
    /// Exchanges in request order, with their chunks.
    public let exchanges: [ExchangeRecord]

    /// Exchanges but CONNECTs (the requests a client made to origins).
    public var requests: [ExchangeRecord] { exchanges.filter { $0.method != "CONNECT" } }

    /// Reads the capture at `path`.
    public init(path: String) throws {
        reader = try CaptureReader(path: path)
        events = try reader.events()
        var log = ExchangeLog()
        for e in events { log.apply(e) }
        exchanges = log.records
    }

    /// The recorded body bytes of an exchange, chunk by chunk from `body.bin`.
    public func body(of exchange: ExchangeRecord) throws -> Data {
        var data = Data()
        for c in exchange.chunks { data.append(try reader.bytes(of: c)) }
        return data
    }

    /// Events of one type.
    public func events(_ type: String) -> [CaptureEvent] { events.filter { $0.type == type } }
}
