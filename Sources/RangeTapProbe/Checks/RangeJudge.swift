import RangeTapCore

/// Judges one answer against what RFC 9110 asks for a range, comparing body bytes with the
/// reference by SHA-256. Shared by the single-range, If-Range, method and version checks.
enum RangeJudge {
    /// A response to one satisfiable range that must be a 206 carrying exactly `expected` of a
    /// `length`-byte resource. `on200` is the result when the server sends the whole body instead.
    static func partial(
        _ r: ProbeResponse, expected: ByteRange, length: Int64, run: ProbeRun, on200: CheckResult = .fail
    ) -> (CheckResult, String) {
        let asked = r.request.range ?? "no Range"
        guard let status = r.status else { return (.fail, "\(asked): no response (\(r.error ?? "unknown error"))") }
        switch status {
        case 206:
            break
        case 200:
            let what = r.contentLength.map { "the whole body (Content-Length \($0))" } ?? "a whole body"
            return (
                on200,
                "\(asked) → 200 with \(what) instead of 206 bytes \(expected)/\(length); rangetap stopped after \(r.bodyBytes) bytes — a client asking this range downloads from byte 0"
            )
        case 416:
            return (
                .fail,
                "\(asked) → 416, but bytes \(expected) of \(length) are satisfiable: a client asking this range gets an error instead of its bytes"
            )
        default:
            return (.fail, "\(asked) → \(status) instead of 206 bytes \(expected)/\(length)")
        }
        if r.mediaType == "multipart/byteranges" {
            return (
                .fail,
                "\(asked) → 206 multipart/byteranges for a single range; a server must send one part as a plain 206 with Content-Range (RFC 9110 §14.6)"
            )
        }
        guard let parsed = r.contentRange else {
            return (
                .fail,
                "\(asked) → 206 without Content-Range: a client cannot tell which bytes it got, or the file's length"
            )
        }
        let cr: ContentRange
        switch parsed {
        case .success(let value): cr = value
        case .failure(let error): return (.fail, "\(asked) → 206 with a Content-Range rangetap cannot use: \(error)")
        }
        guard cr.unit.lowercased() == "bytes", let got = cr.range else {
            return (.fail, "\(asked) → 206 with Content-Range \"\(r.contentRangeValue ?? "")\", not a byte range")
        }
        guard got == expected else {
            return (
                .fail,
                "\(asked) → Content-Range bytes \(got)/\(cr.completeLength.map(String.init) ?? "*"), expected bytes \(expected)/\(length): a cache stores these bytes at the wrong offset"
            )
        }
        guard let total = cr.completeLength else {
            return (
                .warn,
                "\(asked) → Content-Range bytes \(got)/* : the complete length is unknown, so a player cannot learn the file's size (it is \(length))"
            )
        }
        guard total == length else {
            return (
                .fail,
                "\(asked) → Content-Range total \(total), but the resource has \(length) bytes: a player computes the wrong duration and seek offsets"
            )
        }
        if let cl = r.contentLength, cl != expected.count {
            return (
                .fail,
                "\(asked) → Content-Length \(cl) for a \(expected.count)-byte part (Content-Range bytes \(got)/\(total))"
            )
        }
        if let error = r.error {
            return (.fail, "\(asked) → the body broke off after \(r.bodyBytes) of \(expected.count) bytes: \(error)")
        }
        if !r.stoppedEarly, r.bodyBytes != expected.count {
            return (
                .fail,
                "\(asked) → \(r.bodyBytes) body bytes where Content-Range bytes \(got) promises \(expected.count)"
            )
        }
        let readNote = r.stoppedEarly ? " (rangetap read the first \(r.bodyBytes) of \(expected.count) bytes)" : ""
        guard r.bodyBytes > 0 else { return (.pass, "\(asked) → 206 bytes \(got)/\(total)") }
        let read = ByteRange(first: expected.first, last: expected.first + r.bodyBytes - 1)
        guard let reference = run.reference(read) else {
            return (
                .pass,
                "\(asked) → 206 bytes \(got)/\(total), \(r.bodyBytes == 1 ? "1 byte" : "\(r.bodyBytes) bytes")\(readNote); bytes not compared (\(noReferenceReason(run)))"
            )
        }
        guard reference.hash == r.sha256 else {
            return (
                .fail,
                "\(asked) → 206 bytes \(got)/\(total), but the bytes differ from the same slice of \(reference.source) (SHA-256 \(short(r.sha256)) vs \(short(reference.hash))): a cache would serve corrupt media"
            )
        }
        return (
            .pass,
            "\(asked) → 206 bytes \(got)/\(total), \(r.bodyBytes == 1 ? "1 byte" : "\(r.bodyBytes) bytes")\(readNote) equal to the same slice of \(reference.source) (SHA-256)"
        )
    }

    /// A response that must be a 200 with the whole `length`-byte representation (its first
    /// bytes compared with the reference).
    static func whole(_ r: ProbeResponse, length: Int64, run: ProbeRun) -> (CheckResult, String) {
        let asked = r.request.label
        guard let status = r.status else { return (.fail, "\(asked): no response (\(r.error ?? "unknown error"))") }
        guard status == 200 else { return (.fail, "\(asked) → \(status) instead of 200 with the whole body") }
        if let cl = r.contentLength, cl != length {
            return (.fail, "\(asked) → 200 with Content-Length \(cl), but the resource has \(length) bytes")
        }
        if let error = r.error {
            return (.fail, "\(asked) → 200, but the body broke off after \(r.bodyBytes) bytes: \(error)")
        }
        let read = r.stoppedEarly ? ", rangetap read the first \(r.bodyBytes) bytes" : ""
        guard r.bodyBytes > 0 else { return (.pass, "\(asked) → 200 with the whole body") }
        guard let reference = run.reference(ByteRange(first: 0, last: r.bodyBytes - 1)) else {
            return (.pass, "\(asked) → 200 with the whole body\(read); bytes not compared (\(noReferenceReason(run)))")
        }
        guard reference.hash == r.sha256 else {
            return (
                .fail,
                "\(asked) → 200, but its first \(r.bodyBytes) bytes differ from \(reference.source) (SHA-256 \(short(r.sha256)) vs \(short(reference.hash)))"
            )
        }
        return (.pass, "\(asked) → 200 with the whole body\(read), equal to \(reference.source) (SHA-256)")
    }

    /// Why no reference slice exists.
    static func noReferenceReason(_ run: ProbeRun) -> String {
        guard let get = run[.get] else { return "no plain GET was made" }
        guard get.status == 200 else { return "the plain GET answered \(get.status.map(String.init) ?? "nothing")" }
        if get.error != nil { return "the plain GET broke off after \(get.bodyBytes) bytes" }
        return "the slice lies past the \(run.options.referenceLimit) bytes of the plain GET that rangetap reads"
    }

    /// The first 12 hex digits of a hash.
    static func short(_ hash: String?) -> String { hash.map { String($0.prefix(12)) } ?? "none" }
}
