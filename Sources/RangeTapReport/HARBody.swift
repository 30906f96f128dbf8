import Foundation
import RangeTapCore

/// The response body of one exchange in a HAR export: the bytes the client got, or why a
/// recorded body was left out of the file.
public enum HARBody: Sendable, Equatable {
    /// The body bytes the client got (for a cancelled exchange, only those delivered).
    case bytes(Data)
    /// The body is recorded but not in the HAR; the text says why.
    case leftOut(String)

    /// The bodies of `analysis`'s exchanges by exchange id, read from the capture at `reader`
    /// (which must be the capture `analysis` was built from, analysed with `keepChunks`).
    /// Empty when the capture has no bodies or `maxBytes` is 0. A body over `maxBytes` is
    /// ``leftOut(_:)``; so is one whose chunks were not kept. Exchanges without body bytes
    /// (none came, a CONNECT tunnel) have no entry.
    public static func read(
        _ analysis: CaptureAnalysis, from reader: CaptureReader, maxBytes: Int64
    ) throws(CaptureError) -> [Int: HARBody] {
        guard reader.header.bodies, maxBytes > 0 else { return [:] }
        var bodies: [Int: HARBody] = [:]
        for e in analysis.exchanges {
            let r = e.record
            let size = clientBodySize(r)
            guard size > 0, r.chunkCount > 0 else { continue }
            if size > maxBytes {
                bodies[r.id] = .leftOut(
                    "body left out: \(size) bytes, over the limit of \(maxBytes) bytes (rangetap export --har-max-body)"
                )
                continue
            }
            guard r.chunks.count == r.chunkCount else {
                bodies[r.id] = .leftOut("body left out: its chunks were not read")
                continue
            }
            var data = Data()
            data.reserveCapacity(Int(size))
            for chunk in r.chunks where Int64(data.count) < size {
                let bytes = try reader.bytes(of: chunk)
                data.append(bytes.prefix(Int(size) - data.count))
            }
            bodies[r.id] = .bytes(data)
        }
        return bodies
    }

    /// Body bytes the client got: the bytes it was sent (the origin's, or rangetap's own
    /// answer's), or for a cancelled exchange (or one a fault cut) the bytes delivered before
    /// the end (never more than were received).
    static func clientBodySize(_ r: ExchangeRecord) -> Int64 {
        switch r.outcome {
        case .cancelled: return min(r.bytesDelivered ?? 0, r.bytesSent)
        case .failed where r.bytesDelivered != nil: return min(r.bytesDelivered ?? 0, r.bytesSent)
        default: return r.bytesSent
        }
    }
}
