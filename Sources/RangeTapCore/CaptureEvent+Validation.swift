extension CaptureEvent {
    /// Checks the numeric ranges the format promises (`docs/capture-format.md`, "Numbers"):
    /// times, ids, sizes and offsets are not negative, a response status has three digits, and
    /// `off + size` and `at + size` fit in 63 bits. JSON types are checked by the decoder; this
    /// catches edited or damaged lines that would otherwise reach range maths.
    ///
    /// `res + size` is not checked: an origin may send any `Content-Range` start, and a faithful
    /// recording of it is a valid capture. Readers of `res` handle sums that do not fit.
    func validate(lineNumber: Int) throws(CaptureError) {
        let check = NumberCheck(lineNumber: lineNumber)
        switch self {
        case .header:
            break
        case .connectionOpen(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("conn", e.connection)
            try check.notNegative("sndbuf", e.sendBuffer)
        case .connectionClose(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("conn", e.connection)
            try check.notNegative("requests", e.requests)
        case .request(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
            try check.notNegative("conn", e.connection)
            // HTTP/2 stream ids are 31-bit, and a client's are odd (RFC 9113 §5.1.1).
            if let stream = e.stream { try check.within("stream", Int64(stream), 1...2_147_483_647) }
        case .interim(let e), .response(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
            try check.status("status", e.status)
            if let port = e.upstreamPort { try check.within("upstreamPort", Int64(port), 0...65535) }
        case .chunk(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
            try check.notNegative("size", e.size)
            try check.notNegative("off", e.offset)
            try check.notNegative("res", e.resourceOffset)
            try check.notNegative("at", e.bodyOffset)
            try check.sumFits("off", e.offset, "size", Int64(e.size))
            if let at = e.bodyOffset { try check.sumFits("at", at, "size", Int64(e.size)) }
        case .end(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
            try check.notNegative("bytes", e.bytes)
            try check.notNegative("delivered", e.delivered)
            try check.notNegative("served", e.served)
        case .cancel(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
            try check.notNegative("delivered", e.delivered)
            try check.notNegative("received", e.received)
            try check.notNegative("sndbuf", e.sendBuffer)
        case .error(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
            try check.notNegative("conn", e.connection)
            try check.notNegative("received", e.received)
            try check.notNegative("delivered", e.delivered)
            if let status = e.status { try check.status("status", status) }
        case .tunnel(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("opened", e.opened)
            try check.notNegative("ex", e.exchange)
            try check.notNegative("conn", e.connection)
            try check.notNegative("up", e.up)
            try check.notNegative("down", e.down)
        case .tls(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("conn", e.connection)
            try check.notNegative("ex", e.exchange)
        case .pause(let e), .resume(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
        case .fault(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
        case .shape(let e):
            try check.notNegative("t", e.t)
        case .delivered(let e):
            try check.notNegative("t", e.t)
            try check.notNegative("ex", e.exchange)
            try check.notNegative("bytes", e.bytes)
        }
    }
}

/// The range checks of one line, each failure a ``CaptureError`` naming the line and the field.
private struct NumberCheck {
    let lineNumber: Int

    func notNegative(_ key: String, _ value: Int64?) throws(CaptureError) {
        guard let value, value < 0 else { return }
        throw .malformedEvent(
            line: lineNumber, reason: "field \"\(key)\" must be a whole number from 0 to \(Int64.max), found \(value)")
    }

    func notNegative(_ key: String, _ value: Int?) throws(CaptureError) {
        try notNegative(key, value.map(Int64.init))
    }

    func within(_ key: String, _ value: Int64, _ range: ClosedRange<Int64>) throws(CaptureError) {
        guard !range.contains(value) else { return }
        throw .malformedEvent(
            line: lineNumber,
            reason:
                "field \"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound), found \(value)"
        )
    }

    func status(_ key: String, _ value: Int) throws(CaptureError) {
        try within(key, Int64(value), 0...999)
    }

    func sumFits(_ a: String, _ x: Int64, _ b: String, _ y: Int64) throws(CaptureError) {
        guard x.addingChecked(y) == nil else { return }
        throw .malformedEvent(
            line: lineNumber,
            reason: "fields \"\(a)\" + \"\(b)\" (\(x) + \(y)) pass \(Int64.max), the largest offset a capture can hold")
    }
}
