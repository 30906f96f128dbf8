import NIOCore
import NIOHTTP2

/// Where each HTTP/2 DATA frame sent to a client sits in the connection's byte stream, per stream: with the client's
/// TCP-acknowledged count (``System/tcpBytesAcknowledged(_:)``), the body bytes of a stream whose every DATA frame
/// reached the client, its `delivered`, exact however streams interleave.
///
/// `NIOHTTP2Handler` tells its frame delegate (this ledger) of each frame just before it writes
/// its bytes: for DATA, a 9-byte header write, then the payload. ``H2WireTap``, right below it,
/// counts those plaintext bytes, so each frame's end is known as a plaintext offset; at each flush
/// the plaintext written since the last one and the bytes the socket took meanwhile
/// (``ClientWire``: TLS records, when the tunnel is intercepted) are set side by side, and the
/// frames' ends are placed on the socket's count in proportion (exact for h2c; within a record's
/// framing under TLS, where every record is of one size). Event loop only.
final class H2FrameLedger: NIOHTTP2FrameDelegate {
    private struct Emitted {
        var stream: Int
        var plainEnd: Int64
        var size: Int
    }

    /// A stream's DATA frames: where each ended on the socket, and the body bytes up to it.
    private struct Frames {
        var ends: [Int64] = []
        var totals: [Int64] = []
    }

    private let wire: ClientWire
    /// Plaintext bytes written by `NIOHTTP2Handler` so far.
    private var plaintext: Int64 = 0
    /// The DATA frame announced by the delegate call, whose header is the next write.
    private var announced: (stream: Int, size: Int)?
    /// DATA frames written since the last flush.
    private var unflushed: [Emitted] = []
    /// Plaintext and socket counts at the end of the last flush.
    private var flushedPlain: Int64 = 0
    private var flushedWire: Int64 = 0
    private var streams: [Int: Frames] = [:]

    /// A ledger for a connection whose HTTP/2 bytes start at the socket's count now (after the
    /// CONNECT answer and the TLS handshake, if any).
    init(wire: ClientWire) {
        self.wire = wire
        flushedWire = wire.written
    }

    // MARK: NIOHTTP2FrameDelegate

    func wroteFrame(_ frame: HTTP2Frame) {
        switch frame.payload {
        case .data(let data):
            announced = (frame.streamID.number, data.data.readableBytes)
        case .goAway:
            sentGoAway = true
        default:
            break
        }
    }

    /// Whether a GOAWAY was written: NIOHTTP2 writes one before it reports a connection error,
    /// and only a RST_STREAM before a stream error (both reach the pipeline as the bare error).
    private(set) var sentGoAway = false

    // MARK: From H2WireTap

    /// `n` plaintext bytes are being written.
    func wrote(_ n: Int) {
        if let a = announced {
            // The frame's header: its payload follows it.
            announced = nil
            unflushed.append(Emitted(stream: a.stream, plainEnd: plaintext + Int64(n) + Int64(a.size), size: a.size))
        }
        plaintext += Int64(n)
    }

    /// A flush ended: the frames written since the last one are placed on the socket's count.
    func flushed() {
        let plain = plaintext - flushedPlain
        let onWire = wire.written - flushedWire
        for e in unflushed where e.size > 0 {
            let offset = plain > 0 ? (e.plainEnd - flushedPlain) * onWire / plain : onWire
            var frames = streams[e.stream] ?? Frames()
            frames.ends.append(flushedWire + offset)
            frames.totals.append((frames.totals.last ?? 0) + Int64(e.size))
            streams[e.stream] = frames
        }
        unflushed.removeAll(keepingCapacity: true)
        flushedPlain = plaintext
        flushedWire = wire.written
    }

    // MARK: Readings

    /// Body bytes of `stream` whose DATA frames lie within the first `acked` bytes of the socket.
    func delivered(stream: Int, acked: Int64) -> Int64 {
        guard let frames = streams[stream] else { return 0 }
        var low = 0
        var high = frames.ends.count
        while low < high {
            let mid = (low + high) / 2
            if frames.ends[mid] <= acked { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? 0 : frames.totals[low - 1]
    }

    /// Forgets a closed stream.
    func closed(stream: Int) {
        streams[stream] = nil
    }
}

@available(*, unavailable)
extension H2FrameLedger: Sendable {}
