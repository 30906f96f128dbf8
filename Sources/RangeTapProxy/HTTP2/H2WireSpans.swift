/// Where one HTTP/2 stream's DATA writes ended in the connection's byte stream (the socket's
/// count of bytes written when each write completed): with the client's TCP-acknowledged byte
/// count, the body bytes whose every DATA frame the client's TCP stack received. Conservative: a
/// write counts only once the acknowledged count passes where it was seen to end, so frames of
/// other streams interleaved with it never inflate it.
struct H2WireSpans {
    private var ends: [(end: Int64, total: Int64)] = []
    /// Body bytes of the writes noted so far.
    private(set) var total: Int64 = 0

    /// A DATA write of `size` body bytes completed when the socket had taken `end` bytes.
    mutating func note(end: Int64, size: Int) {
        total += Int64(size)
        ends.append((end, total))
    }

    /// Body bytes whose writes lie wholly within the first `acked` bytes of the connection.
    func delivered(acked: Int64) -> Int64 {
        var low = 0
        var high = ends.count
        while low < high {
            let mid = (low + high) / 2
            if ends[mid].end <= acked { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? 0 : ends[low - 1].total
    }
}
