import NIOCore
import NIOHTTP1
import NIOPosix
import RangeTapSystem

/// A minimal HTTP/1.1 client for driving a proxy under test: GET requests one after another on
/// a kept-alive connection (a new one when the server closes), every response part handed over
/// as it arrives so nothing is buffered whole.
struct LoopbackHTTPClient: Sendable {
    /// One request to send.
    struct Request: Sendable {
        /// Origin-form target.
        var target: String
        /// Extra header fields (Host is added).
        var headers: [(String, String)]
    }

    /// A piece of a response.
    enum Part {
        /// The head.
        case head(status: Int, headers: HTTPHeaders)
        /// Body bytes.
        case body(ByteBuffer)
    }

    /// Server host.
    var host: String
    /// Server port.
    var port: Int
    /// Limit for one response, from the request to its end.
    var timeout: Duration

    /// Why a connection to the server failed, or nil when it can be opened (it is closed again).
    func unreachable() async -> String? {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10)).connect(host: host, port: port).get()
            try? await channel.close()
            return nil
        } catch {
            return Self.describeConnectFailure(error)
        }
    }

    /// A connect failure in words: the system's text for its errno (`Connection refused`) when
    /// NIO carries one, else NIO's description.
    static func describeConnectFailure(_ error: any Error) -> String {
        if let e = error as? NIOConnectionError {
            for failure in e.connectionErrors {
                if let io = failure.error as? IOError { return System.errorText(io.errnoCode) }
            }
            if e.connectionErrors.isEmpty, let dns = e.dnsAError ?? e.dnsAAAAError { return "\(dns)" }
        }
        if let io = error as? IOError { return System.errorText(io.errnoCode) }
        if error is ChannelError { return "the connection timed out or closed (\(error))" }
        return "\(error)"
    }

    /// Sends `requests` in order, calling `receive(i, part)` for each part of response `i`.
    /// Returns, by request index, what went wrong with the requests that did not complete.
    func send(_ requests: [Request], receive: (Int, Part) throws -> Void) async -> [Int: String] {
        var failures: [Int: String] = [:]
        var next = 0
        while next < requests.count {
            let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
            do {
                channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.seconds(10))
                    .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                    .connect(host: host, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                                wrappingChannelSynchronously: channel)
                        }
                    }
            } catch {
                for i in next..<requests.count {
                    failures[i] = "cannot connect to \(host):\(port): \(Self.describeConnectFailure(error))"
                }
                return failures
            }
            let raw = channel.channel
            do {
                try await channel.executeThenClose { inbound, outbound in
                    var parts = inbound.makeAsyncIterator()
                    while next < requests.count {
                        let index = next
                        next += 1
                        let started = ContinuousClock.now
                        let timeout = self.timeout
                        let watchdog = Task {
                            try await Task.sleep(for: timeout)
                            raw.close(promise: nil)
                        }
                        defer { watchdog.cancel() }
                        do {
                            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: requests[index].target)
                            head.headers.add(name: "Host", value: "\(host):\(port)")
                            for (name, value) in requests[index].headers { head.headers.add(name: name, value: value) }
                            try await outbound.write(.head(head))
                            try await outbound.write(.end(nil))
                            var keepAlive = true
                            var sawHead = false
                            reading: while true {
                                guard let part = try await parts.next() else {
                                    throw LoopbackFailure(
                                        sawHead
                                            ? "the connection closed before the response ended"
                                            : "the connection closed without a response")
                                }
                                switch part {
                                case .head(let h):
                                    // 1xx heads are informational; the final one follows.
                                    if h.status.code < 200 { continue }
                                    sawHead = true
                                    keepAlive = h.isKeepAlive
                                    try receive(index, .head(status: Int(h.status.code), headers: h.headers))
                                case .body(let b):
                                    try receive(index, .body(b))
                                case .end:
                                    break reading
                                }
                            }
                            if !keepAlive { return }
                        } catch {
                            let late = ContinuousClock.now - started >= timeout
                            failures[index] = late ? "no complete response within \(timeout)" : "\(error)"
                            return
                        }
                    }
                }
            } catch {
                // Closing an already broken connection: the failure is recorded above.
            }
        }
        return failures
    }
}

/// A failure of the loopback client, for a person.
struct LoopbackFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
