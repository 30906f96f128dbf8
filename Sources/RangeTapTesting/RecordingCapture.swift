import Foundation
import RangeTapCore
import RangeTapProxy

/// The capture a proxy of `withRecordingProxy(capture:configure:isolation:_:)` records: read its
/// exchanges inside the body (once the proxy is idle), or after it when you chose the directory.
public final class RecordingCapture: Sendable {
    /// The capture directory (`NAME.rtap`, with `events.jsonl` and `body.bin`).
    public let directory: URL
    private let proxy: ProxyServer

    init(directory: URL, proxy: ProxyServer) {
        self.directory = directory
        self.proxy = proxy
    }

    /// The recorded exchanges in request order (CONNECT tunnels included), each with its
    /// request, response head, chunks and outcome.
    ///
    /// Waits first, at most `idleTimeout`, until the proxy holds no exchange in progress, then
    /// until the capture on disk has caught up, so an exchange whose response the client has
    /// read is there with its end. After the timeout it reads what is there: exchanges still in
    /// progress have the outcome `.open`.
    public func exchanges(idleTimeout: Duration = .seconds(10)) async throws -> [ExchangeRecord] {
        let clock = ContinuousClock()
        let deadline = clock.now + idleTimeout
        while proxy.activeUpstreamTransfers > 0 || proxy.liveExchanges > 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        await proxy.flushCapture()
        let reader = try CaptureReader(path: directory.path)
        var log = ExchangeLog()
        try reader.forEachEvent { _ = log.apply($0) }
        return log.records
    }

    /// The body bytes recorded for `exchange` (empty when recorded without bodies).
    public func body(of exchange: ExchangeRecord) throws -> Data {
        let reader = try CaptureReader(path: directory.path)
        guard reader.header.bodies else { return Data() }
        var data = Data()
        for chunk in exchange.chunks { data.append(try reader.bytes(of: chunk)) }
        return data
    }
}
