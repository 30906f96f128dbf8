/// The capacity of the next round's buffer for one upstream transfer: about as large as its
/// rounds have lately been, rather than always the most libcurl could hand over at once.
///
/// Fifty HTTP/2 streams on one connection each get a few KiB per round of `curl_multi_perform`;
/// a buffer of `CURLOPT_BUFFERSIZE` (256 KiB) for each would be memory malloc maps, faults in a
/// page of and unmaps again every round. Upstream thread only.
struct RoundSizer {
    /// The largest capacity: the upstream read size.
    let largest: Int
    /// The smallest capacity, one libcurl write callback's worth.
    let smallest: Int
    /// The capacity to allocate for the next round (at least the bytes of its first callback).
    private(set) var next: Int
    /// The body's length when the response announced one (`Content-Length`): no round gets more
    /// room than what is still to come, so a 16 KiB response never costs a 256 KiB buffer.
    var bodyLength: Int64?

    /// Starts at the largest size: a single big transfer never shrinks below its rounds.
    init(largest: Int, smallest: Int = 16 * 1024) {
        self.largest = max(largest, 1)
        self.smallest = min(smallest, self.largest)
        next = self.largest
    }

    /// The capacity for a round whose first callback brings `first` bytes, `received` bytes into
    /// the body: ``next``, no more than the announced body has left, and never less than `first`.
    func capacity(first: Int, received: Int64) -> Int {
        var capacity = next
        if let bodyLength, bodyLength > received {
            capacity = Int(min(Int64(capacity), bodyLength - received))
        }
        return max(first, capacity)
    }

    /// A round of `size` bytes was passed on; `filled` when it was cut because the buffer had no
    /// room for the next callback (the rounds are growing: double).
    mutating func roundEnded(size: Int, filled: Bool) {
        if filled {
            next = min(largest, next.multipliedReportingOverflow(by: 2).overflow ? largest : next * 2)
        } else {
            // Twice the round, rounded up to a power of two: room for the next one to grow.
            var capacity = smallest
            while capacity < size * 2 && capacity < largest { capacity *= 2 }
            next = min(largest, capacity)
        }
    }
}
