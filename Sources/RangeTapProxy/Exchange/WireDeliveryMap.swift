/// Where one exchange's body bytes sit in the client connection's byte stream, so that an
/// acknowledged stream offset (read from the kernel) can be turned into body bytes delivered.
///
/// Each body write is noted with the stream offset of its first data byte (after any chunk
/// header the encoder put in front of it) and its size. Writes are in stream order.
struct WireDeliveryMap {
    private var starts: [Int64] = []
    private var sizes: [Int32] = []
    /// Stream bytes that carry each write: its size in the clear, more through TLS.
    private var spans: [Int32] = []
    /// Body bytes written so far.
    private(set) var total: Int64 = 0

    /// Notes a body write: the socket had taken `before` bytes before it and `after` bytes after
    /// it (chunk framing included), `size` of them body.
    mutating func note(before: Int64, after: Int64, size: Int) {
        guard size > 0 else { return }
        let framing = after - before - Int64(size)
        // Chunked framing is `<hex>\r\n` before the data and `\r\n` after it.
        let dataStart = framing >= 2 ? after - 2 - Int64(size) : before
        starts.append(dataStart)
        sizes.append(Int32(size))
        spans.append(Int32(size))
        total += Int64(size)
    }

    /// Notes a body write that went out as TLS records taking stream bytes `start..<end`
    /// (record headers and tags included). When the client acknowledged part of that span, the
    /// same share of the write's bytes is counted as delivered.
    mutating func note(encryptedFrom start: Int64, to end: Int64, size: Int) {
        guard size > 0 else { return }
        starts.append(start)
        sizes.append(Int32(size))
        spans.append(Int32(clamping: max(end - start, 1)))
        total += Int64(size)
    }
    /// Body bytes wholly or partly inside the first `acked` bytes of the stream.
    func delivered(acked: Int64) -> Int64 {
        var n: Int64 = 0
        for i in starts.indices {
            let start = starts[i]
            let size = Int64(sizes[i])
            let span = Int64(spans[i])
            if start + span <= acked {
                n += size
            } else {
                if start < acked { n += (acked - start) * size / span }
                break
            }
        }
        return n
    }
}
