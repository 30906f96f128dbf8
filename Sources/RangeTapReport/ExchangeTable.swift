import Foundation
import RangeTapCore

/// `rangetap export --exchanges OUT.jsonl`: one flat JSON object per exchange, every key present
/// on every line (null when unknown), for engines that read JSON lines as a table (DuckDB,
/// Spark, BigQuery); `docs/fleet.md` lists the columns and shows queries over many captures.
public enum ExchangeTable {
    /// The version of the row layout, written as `schemaVersion` on every row.
    public static let schemaVersion = 1

    /// One cell.
    enum Value: Encodable {
        case string(String?)
        case int(Int64?)
        case double(Double?)
        case bool(Bool)
        case optionalBool(Bool?)
        case strings([String])

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let v): if let v { try c.encode(v) } else { try c.encodeNil() }
            case .int(let v): if let v { try c.encode(v) } else { try c.encodeNil() }
            case .double(let v): if let v { try c.encode(v) } else { try c.encodeNil() }
            case .bool(let v): try c.encode(v)
            case .optionalBool(let v): if let v { try c.encode(v) } else { try c.encodeNil() }
            case .strings(let v): try c.encode(v)
            }
        }
    }

    /// A row: its cells by column name.
    struct Row: Encodable {
        var cells: [(String, Value)]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            for (name, value) in cells { try c.encode(value, forKey: Key(stringValue: name)) }
        }
    }

    /// Milliseconds from the capture's start, to the microsecond.
    static func ms(_ t: CaptureTime?) -> Double? {
        t.map { (Double($0) / 1e3).rounded() / 1e3 }
    }

    /// The row of one exchange of the capture `captureID`.
    static func row(_ e: CaptureAnalysis.Exchange, capture captureID: String, startedAt: String) -> Row {
        let r = e.record
        let outcome: String
        var error: String?
        switch r.outcome {
        case .open: outcome = "open"
        case .complete: outcome = "complete"
        case .cancelled: outcome = "cancelled"
        case .failed(let m): (outcome, error) = ("failed", m)
        }
        let origin = r.origin
        let scheme = origin.flatMap { o in o.range(of: "://").map { String(o[..<$0.lowerBound]) } }
        let host =
            r.method == "CONNECT"
            ? r.target : origin.flatMap { o in o.range(of: "://").map { String(o[$0.upperBound...]) } }
        let spec = r.requestRange.flatMap { try? RangeRequest.parse($0) }.flatMap {
            $0.specs.count == 1 ? $0.specs[0] : nil
        }
        var rangeFirst: Int64?
        var rangeLast: Int64?
        switch spec {
        case .closed(let first, let last): (rangeFirst, rangeLast) = (first, last)
        case .from(let first): rangeFirst = first
        case .suffix, nil: break
        }
        return Row(cells: [
            ("schemaVersion", .int(Int64(schemaVersion))),
            ("capture", .string(captureID)),
            ("captureStartedAt", .string(startedAt)),
            ("exchange", .int(Int64(r.id))),
            ("connection", .int(Int64(r.connection))),
            ("stream", .int(r.stream.map(Int64.init))),
            ("httpVersion", .string(r.clientHTTPVersion)),
            ("method", .string(r.method)),
            ("scheme", .string(scheme)),
            ("host", .string(host)),
            ("path", .string(r.method == "CONNECT" ? nil : r.path)),
            ("url", .string(r.url)),
            ("range", .string(r.requestRange)),
            ("rangeFirst", .int(rangeFirst)),
            ("rangeLast", .int(rangeLast)),
            ("status", .int(r.clientStatus.map(Int64.init))),
            ("originStatus", .int(r.status.map(Int64.init))),
            ("contentRange", .string(r.contentRange)),
            ("resourceStart", .int(e.resourceSpan?.lowerBound)),
            ("resourceEnd", .int(e.resourceSpan?.upperBound)),
            ("expectedBytes", .int(e.expectedBytes)),
            ("bytesReceived", .int(r.bytesReceived)),
            ("bytesDelivered", .int(r.bytesToClient)),
            ("bytesServed", .int(r.bytesServed)),
            ("refetchedBytes", .int(e.refetchedBytes)),
            ("chunks", .int(Int64(r.chunkCount))),
            ("startMs", .double(ms(r.start))),
            ("responseMs", .double(ms(r.responseAt))),
            ("firstByteMs", .double(ms(r.firstChunkAt))),
            ("endMs", .double(ms(r.end))),
            ("durationMs", .double(r.durationMs)),
            ("pausedMs", .double(Double(r.pausedNs) / 1e6)),
            ("outcome", .string(outcome)),
            ("cancelled", .bool(r.outcome == .cancelled)),
            ("error", .string(error)),
            ("findings", .strings(e.findings.filter { !$0.injected }.map(\.code))),
            ("worstFinding", .string(e.findings.filter { !$0.injected }.map(\.severity).max()?.rawValue)),
            ("injectedFindings", .strings(e.findings.filter(\.injected).map(\.code))),
            ("faults", .strings(r.faultRules ?? [])),
            ("mediaKind", .string(e.media?.kind.rawValue)),
            ("mediaFormat", .string(e.media?.format)),
            ("rendition", .string(e.media?.rendition)),
            ("sequence", .int(e.media?.sequence.map(Int64.init))),
            ("mediaStart", .double(e.media?.start)),
            ("mediaEnd", .double(e.media?.end)),
            ("cmcdSid", .string(e.cmcd?.sessionID)),
            ("cmcdCid", .string(e.cmcd?.contentID)),
            ("cmcdOt", .string(e.cmcd?.objectType)),
            ("cmcdBr", .int(e.cmcd?.bitrateKbps)),
            ("cmcdD", .int(e.cmcd?.durationMs)),
            ("cmcdBl", .int(e.cmcd?.bufferLengthMs)),
            ("cmcdMtp", .int(e.cmcd?.measuredThroughputKbps)),
            ("cmcdBs", .optionalBool(e.cmcd.map(\.starved))),
            ("cmcdSu", .optionalBool(e.cmcd.map(\.startup))),
            ("cmcd", .string(e.cmcd.map { $0.entries.map(\.text).joined(separator: ",") })),
        ])
    }

    /// The capture id written on every row: the capture directory's name without `.rtap`.
    public static func captureID(path: String) -> String {
        var name = URL(fileURLWithPath: path).standardizedFileURL.lastPathComponent
        if name.hasSuffix(".rtap") { name.removeLast(5) }
        return name
    }

    /// The JSON lines of every exchange of `analysis`, one per line.
    public static func lines(analysis: CaptureAnalysis, capture captureID: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = Data()
        for e in analysis.exchanges {
            out.append(try encoder.encode(row(e, capture: captureID, startedAt: analysis.header.startedAt)))
            out.append(0x0A)
        }
        return out
    }

    /// Writes the rows of `analysis` to `path` (replacing it).
    public static func write(analysis: CaptureAnalysis, capturePath: String, to path: String) throws {
        let data = try lines(analysis: analysis, capture: captureID(path: capturePath))
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ReportError.cannotWrite(path: path, reason: error.localizedDescription)
        }
    }
}
