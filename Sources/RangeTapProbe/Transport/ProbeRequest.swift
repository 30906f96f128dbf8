import RangeTapCore

/// One request the probe sends: method, Range, extra headers, and how much of the answer to read.
struct ProbeRequest: Sendable {
    /// Its name within the check (`bytes=0-1`, `If-Range: wrong ETag`).
    var label: String
    /// `GET` or `HEAD`.
    var method = "GET"
    /// The Range header value, sent exactly as written.
    var range: String?
    /// More header lines (`If-Range: …`, `Connection: close`).
    var headers: [String] = []
    /// The Accept-Encoding value.
    var acceptEncoding = "identity"
    /// Send HTTP/1.0 instead of HTTP/1.1.
    var http10 = false
    /// How much of the body to read.
    var limits: ReadLimits
    /// Resource byte ranges whose SHA-256 the transfer computes as the body streams by (the body's
    /// first byte is at the response's resource offset: 0 for a 200, the Content-Range start for a 206).
    var slices: [ByteRange] = []
    /// How many leading body bytes to keep in memory (for a multipart body).
    var keepBytes = 0

    /// A GET for `range` expecting `count` bytes.
    static func range(_ label: String, _ value: String, expecting count: Int64, slices: [ByteRange] = []) -> Self {
        ProbeRequest(label: label, range: value, limits: .range(count), slices: slices)
    }
}
