import RangeTapCore
import RangeTapCurl

/// Where exchanges' upstream halves come from: libcurl (``CurlUpstream``) in the proxy; a
/// scripted upstream in the handler tests, which drive ``ProxyHandler`` and the HTTP/2 stream
/// handler on an `EmbeddedChannel` message by message.
protocol UpstreamConnector: Sendable {
    /// The upstream half of exchange `id` on client connection `connection`, its window narrowed
    /// by the connection's `share` when given. Its messages go to `deliver`, from whatever thread
    /// the upstream runs on, in ``UpstreamMessage``'s order.
    func transfer(
        id: Int, connection: Int, share: ConnectionShare?, context: RecordingContext,
        deliver: @escaping @Sendable (UpstreamMessage) -> Void
    ) -> any UpstreamTransfer
    /// Transfers started and not yet finished.
    var activeTransfers: Int { get }
    /// Stops every transfer; their ends are reported as interrupted.
    func shutdown()
}

/// One exchange's upstream half as its driver sees it (event loop only).
protocol UpstreamTransfer: AnyObject {
    /// The back-pressure window between the upstream and the client's writes.
    var flow: FlowControl { get }
    /// Starts the transfer.
    func start(_ request: CurlRequest)
    /// Stops it (the client left, or the driver has answered): its end comes back as `failed`
    /// (or `end`, when it had finished first).
    func abort()
    /// Lets a transfer paused for back-pressure go on.
    func resume()
    /// Stops it because the client's request failed on the way (its body timed out, or its
    /// framing was wrong): its end comes back as `failed` with `failure`, whose status (when it
    /// has one) is what the client is answered when no head was written yet.
    func stop(_ failure: ErrorEvent)
}

/// libcurl's upstream: one ``Exchange`` per transfer on the proxy's ``CurlMulti`` thread.
struct CurlUpstream: UpstreamConnector {
    let multi: CurlMulti

    func transfer(
        id: Int, connection: Int, share: ConnectionShare?, context: RecordingContext,
        deliver: @escaping @Sendable (UpstreamMessage) -> Void
    ) -> any UpstreamTransfer {
        Exchange(id: id, connection: connection, share: share, context: context, multi: multi, deliver: deliver)
    }

    var activeTransfers: Int { multi.activeTransfers }

    func shutdown() { multi.shutdown() }
}
