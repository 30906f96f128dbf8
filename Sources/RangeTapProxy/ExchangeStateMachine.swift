import NIOCore
import NIOHTTP1

/// The client-facing life of one exchange, on the event loop: what to write or do for each
/// thing upstream or the client does. A value type; ``ProxyHandler`` carries out its actions.
struct ExchangeStateMachine {
    enum State: Equatable {
        /// Request sent upstream; no final response head yet.
        case awaitingHead
        /// Head written; body streaming.
        case streaming
        /// Response ended toward the client.
        case finished
        /// The client went away first.
        case clientGone
    }

    enum Action: Equatable {
        case none
        /// Write the final response head.
        case writeHead(HTTPResponseHead)
        /// Write body bytes; report the write's completion back with ``writeCompleted(_:windowDrained:)``.
        case writeBody(ByteBuffer)
        /// End the response; then close the connection if `close`.
        case writeEnd(close: Bool)
        /// Answer with the proxy's own error response (no response head was sent yet).
        case respondWithError(HTTPResponseStatus, message: String)
        /// Close the connection: a failure after the head was sent can only be signalled this way.
        case closeConnection
        /// Abort the upstream transfer; the client accepted `delivered` body bytes.
        case cancelUpstream(delivered: Int64)
        /// Let the paused upstream transfer continue.
        case resumeUpstream
    }

    private(set) var state: State = .awaitingHead
    /// Body bytes the client socket accepted.
    private(set) var bytesDelivered: Int64 = 0
    /// Whether the client wants the connection kept open after this exchange.
    let clientKeepAlive: Bool
    /// The client's HTTP version.
    let clientVersion: HTTPVersion
    private var closeAfterEnd = false

    init(clientVersion: HTTPVersion, clientKeepAlive: Bool) {
        self.clientVersion = clientVersion
        self.clientKeepAlive = clientKeepAlive
    }

    mutating func upstreamHead(status: Int, headers: HTTPHeaders) -> Action {
        guard state == .awaitingHead else { return .none }
        state = .streaming
        var headers = headers
        // An HTTP/1.0 client cannot take chunked framing: without a length, the close ends the body.
        if clientVersion == .http1_0 && !headers.contains(name: "content-length") {
            closeAfterEnd = true
        }
        if clientVersion == .http1_0 && clientKeepAlive && !closeAfterEnd {
            headers.add(name: "Connection", value: "keep-alive")
        }
        if !clientKeepAlive && clientVersion == .http1_1 {
            headers.add(name: "Connection", value: "close")
        }
        return .writeHead(HTTPResponseHead(version: clientVersion, status: HTTPResponseStatus(statusCode: status), headers: headers))
    }

    mutating func upstreamBody(_ buffer: ByteBuffer) -> Action {
        guard state == .streaming else { return .none }
        return .writeBody(buffer)
    }

    mutating func upstreamEnd() -> Action {
        switch state {
        case .streaming:
            state = .finished
            return .writeEnd(close: closeAfterEnd || !clientKeepAlive)
        case .awaitingHead:
            // libcurl ended without a head (cannot happen for HTTP, but never leave a client hanging).
            state = .finished
            return .respondWithError(.badGateway, message: "the upstream response ended before its head")
        case .finished, .clientGone:
            return .none
        }
    }

    mutating func upstreamFailed(message: String) -> Action {
        switch state {
        case .awaitingHead:
            state = .finished
            return .respondWithError(.badGateway, message: message)
        case .streaming:
            state = .finished
            return .closeConnection
        case .finished, .clientGone:
            return .none
        }
    }

    mutating func clientClosed() -> Action {
        switch state {
        case .awaitingHead, .streaming:
            state = .clientGone
            return .cancelUpstream(delivered: bytesDelivered)
        case .finished, .clientGone:
            return .none
        }
    }

    /// A body write finished. `written` tells whether the socket took it; `windowDrained` is
    /// ``FlowControl/complete(_:)``'s answer.
    mutating func writeCompleted(_ bytes: Int, written: Bool, windowDrained: Bool) -> Action {
        if written { bytesDelivered += Int64(bytes) }
        return windowDrained && state == .streaming ? .resumeUpstream : .none
    }
}
