import RangeTapCore

/// What the client side knows when it is done with an exchange: it closed (`gone`), or every
/// body byte was seen to reach it.
struct ClientOutcome: Equatable {
    /// When the client's close was seen, or when the last byte was seen acknowledged.
    var t: CaptureTime
    /// Body bytes that reached the client.
    var delivered: Int64
    /// How `delivered` was measured.
    var measure: DeliveryMeasure
    /// True when the client closed; false when it was seen to have every byte.
    var gone: Bool
    /// The client socket's send buffer.
    var sendBuffer: Int?
    /// HTTP/2: what the client granted back with `WINDOW_UPDATE` on the stream.
    var consumed: Int64?
}
