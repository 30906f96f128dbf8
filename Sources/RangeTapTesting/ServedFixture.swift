import Foundation
import RangeTapReplay

/// A fixture server running inside `withFixtureServer(capture:mode:speed:isolation:_:)`:
/// its address, and the log of the requests it answered, to check what a client asked for.
///
/// ```swift
/// #expect(await fixture.requests(matching: RequestPattern(range: "bytes=0-1")).map(\.status) == [206])
/// ```
public final class ServedFixture: Sendable {
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public let baseURL: URL
    /// The port it listens on.
    public let port: Int
    private let server: FixtureServer

    init(server: FixtureServer, baseURL: URL) {
        self.server = server
        self.baseURL = baseURL
        port = server.port
    }

    /// Every request answered so far, in the order the answers began: method, path, `Range`,
    /// status, body bytes sent, and whether the answer was written in full. Bytes a client has
    /// received are counted by the time this returns.
    public var requests: [ServedRequest] {
        get async { await server.requestLog() }
    }

    /// The requests answered so far that match `pattern`.
    public func requests(matching pattern: RequestPattern) async -> [ServedRequest] {
        await requests.filter(pattern.matches)
    }

    /// Totals: requests, body bytes, responses in progress, requests refused for bytes the
    /// capture does not hold.
    public var traffic: FixtureServer.Traffic { server.traffic }
}
