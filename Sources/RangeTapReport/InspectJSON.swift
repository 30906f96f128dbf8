import Foundation
import RangeTapCore

/// The `inspect --json` document. Its schema is `docs/inspect-json.md`; keys are sorted so the
/// output is stable.
public struct InspectJSON: Encodable, Sendable {
    struct Capture: Encodable, Sendable {
        var path: String
        var formatVersion: Int
        var tool: String
        var startedAt: String
        var bodies: Bool
        var truncatedTail: Bool
    }

    struct Exchange: Encodable, Sendable {
        var id: Int
        var connection: Int
        /// The HTTP/2 stream id; absent for HTTP/1.x.
        var stream: Int?
        /// `"1.0"`, `"1.1"` or `"2"`: the request's version.
        var clientHTTPVersion: String
        /// `"1.0"`, `"1.1"` or `"2"`: the response status line's version; absent without a response.
        var upstreamHTTPVersion: String?
        var method: String
        var url: String
        var requestRange: String?
        var status: Int?
        var contentRange: String?
        var bytesReceived: Int64
        var bytesDelivered: Int64
        /// What rangetap answered itself (a fault's `status=` body); absent when it relayed the origin's.
        var bytesServed: Int64?
        /// HTTP/2: what the client granted back with `WINDOW_UPDATE` (absent otherwise).
        var bytesConsumed: Int64?
        var expectedBytes: Int64?
        var chunks: Int
        var cancelled: Bool
        var outcome: String
        var error: String?
        var upstreamReused: Bool?
        var startMs: Double
        var responseMs: Double?
        var endMs: Double?
        /// Time rangetap held the origin back because the client read slowly.
        var pausedMs: Double
        var resourceStart: Int64?
        var refetchedBytes: Int64
        var findings: [Finding]
        /// What `--fault` rules changed on the way to the client; absent when nothing was.
        var faults: [Fault]?
        /// The shaped client's progress; absent when the link was not shaped.
        var deliveries: [Delivery]?
        /// What it fetched in media terms (kind, format, rendition, sequence, start and end
        /// seconds); absent when the capture's playlists, manifests or MP4 index do not say.
        var media: MediaSpan?
        /// What the player said in the request's CMCD (keys, their sources, the raw payloads,
        /// problems); absent when it sent none.
        var cmcd: CMCDData?
    }

    /// A fault injected into an exchange (a `fault` event).
    struct Fault: Encodable, Sendable {
        var atMs: Double
        var rule: String
        var action: String
        var detail: String
    }

    /// Body bytes written to a shaped client by `atMs` (a `delivered` event).
    struct Delivery: Encodable, Sendable {
        var atMs: Double
        var bytes: Int64
    }

    /// The client link's shaping from `atMs` on (a `shape` event).
    struct Shape: Encodable, Sendable {
        var atMs: Double
        var spec: String
        var trace: String?
    }

    struct Resource: Encodable, Sendable {
        var url: String
        var length: Int64?
        var requests: Int
        var bytesFetched: Int64
        var uniqueBytes: Int64
        var redundancy: Double
    }

    struct Connection: Encodable, Sendable {
        var id: Int
        var requests: Int
        var closedBy: ConnectionCloseEvent.Closer?
        /// `"2"` when its requests came as HTTP/2 streams; absent when it carried no request.
        var clientHTTPVersion: String?
        /// HTTP/2 streams it carried; absent on HTTP/1.x connections.
        var streams: Int?
    }

    struct Summary: Encodable, Sendable {
        var requests: Int
        var connections: Int
        var maxRequestsPerConnection: Int
        var bytesFetched: Int64
        var uniqueBytes: Int64
        var redundancy: Double
        var cancels: Int
        var seeks: Int
        var errors: Int
        /// Findings by severity, those injected by `--fault` rules left out.
        var findings: [String: Int]
        /// Findings injected by `--fault` rules, by severity; absent when no fault was injected.
        var injectedFindings: [String: Int]?
    }

    var schemaVersion = 1
    var capture: Capture
    var exchanges: [Exchange]
    var findings: [Finding]
    var resources: [Resource]
    var connections: [Connection]
    /// The client link's shaping; absent when it was not shaped.
    var shapes: [Shape]?
    var summary: Summary

    /// The document for `analysis` of the capture at `path`.
    public init(_ a: CaptureAnalysis, path: String) {
        func ms(_ t: CaptureTime?) -> Double? { t.map { (Double($0) / 1e4).rounded() / 100 } }
        capture = Capture(
            path: path, formatVersion: a.header.version, tool: a.header.tool, startedAt: a.header.startedAt,
            bodies: a.header.bodies, truncatedTail: a.truncatedTail)
        exchanges = a.exchanges.map { e in
            let r = e.record
            var outcome = "complete"
            var error: String?
            switch r.outcome {
            case .complete: outcome = "complete"
            case .open: outcome = "open"
            case .cancelled: outcome = "cancelled"
            case .failed(let m):
                outcome = "failed"
                error = m
            }
            return Exchange(
                id: r.id, connection: r.connection, stream: r.stream, clientHTTPVersion: r.clientHTTPVersion,
                upstreamHTTPVersion: r.upstreamHTTPVersion, method: r.method, url: r.url ?? r.target,
                requestRange: r.requestRange,
                status: r.status, contentRange: r.contentRange, bytesReceived: r.bytesReceived,
                bytesDelivered: r.bytesToClient, bytesServed: r.bytesServed,
                bytesConsumed: r.bytesConsumed,
                expectedBytes: e.expectedBytes, chunks: r.chunkCount, cancelled: r.outcome == .cancelled,
                outcome: outcome, error: error,
                upstreamReused: r.upstreamReused, startMs: ms(r.start)!, responseMs: ms(r.responseAt), endMs: ms(r.end),
                pausedMs: (Double(r.pausedNs) / 1e3).rounded() / 1e3, resourceStart: e.resourceSpan?.lowerBound,
                refetchedBytes: e.refetchedBytes, findings: e.findings,
                faults: r.faults.isEmpty
                    ? nil
                    : r.faults.map { Fault(atMs: ms($0.t)!, rule: $0.rule, action: $0.action, detail: $0.detail) },
                deliveries: r.deliveries.isEmpty
                    ? nil : r.deliveries.map { Delivery(atMs: ms($0.t)!, bytes: $0.bytes) },
                media: e.media.map(Self.rounded), cmcd: e.cmcd)
        }
        shapes = a.shapes.isEmpty ? nil : a.shapes.map { Shape(atMs: ms($0.t)!, spec: $0.spec, trace: $0.trace) }
        findings = a.findings
        resources = a.resources.map {
            Resource(
                url: $0.url, length: $0.length, requests: $0.requests, bytesFetched: $0.bytesFetched,
                uniqueBytes: $0.uniqueBytes, redundancy: ($0.redundancy * 1000).rounded() / 1000)
        }
        connections = a.connections.map {
            Connection(
                id: $0.id, requests: $0.requests, closedBy: $0.closedBy, clientHTTPVersion: $0.clientHTTPVersion,
                streams: $0.isHTTP2 ? $0.streams : nil)
        }
        let s = a.summary
        summary = Summary(
            requests: s.requests, connections: s.connections, maxRequestsPerConnection: s.maxRequestsPerConnection,
            bytesFetched: s.bytesFetched, uniqueBytes: s.uniqueBytes,
            redundancy: s.uniqueBytes > 0
                ? (Double(s.bytesFetched) / Double(s.uniqueBytes) * 1000).rounded() / 1000 : 1,
            cancels: s.cancels, seeks: s.seeks, errors: s.errors,
            findings: Dictionary(
                uniqueKeysWithValues: Finding.Severity.allCases.map { ($0.rawValue, s.findings[$0] ?? 0) }),
            injectedFindings: a.exchanges.contains { !$0.record.faults.isEmpty }
                ? Dictionary(
                    uniqueKeysWithValues: Finding.Severity.allCases.map { ($0.rawValue, s.injectedFindings[$0] ?? 0) })
                : nil)
    }

    /// A media span with its times to the millisecond.
    private static func rounded(_ m: MediaSpan) -> MediaSpan {
        var m = m
        m.start = m.start.map { ($0 * 1000).rounded() / 1000 }
        m.end = m.end.map { ($0 * 1000).rounded() / 1000 }
        return m
    }

    /// Pretty-printed JSON with sorted keys.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
