/// How a `delivered` byte count was measured (`deliveredBy` in end and cancel events).
public enum DeliveryMeasure: String, Sendable, Equatable, CaseIterable {
    /// Body bytes the client's TCP stack acknowledged (the kernel's count of acknowledged bytes), read
    /// when the close or reset was seen, before the socket was closed. At least what the client
    /// read, at most that plus what its receive buffer held unread.
    case tcpAcked = "tcp-acked"
    /// Acknowledged bytes read at the last write completion before the connection failed on a
    /// write (the close was not seen on a read): at most one write's worth of acknowledgements old.
    case tcpAckedAtLastWrite = "tcp-acked-last-write"
    /// Completed writes to the client socket, in 32 KiB slices (no acknowledged-bytes count on this platform):
    /// may exceed what the client received by the socket's send buffer.
    case writes
    /// The proxy ended the response and saw every byte acknowledged, or the client sent its
    /// next request on the connection.
    case complete
    /// An HTTP/2 stream's body bytes the client granted back with `WINDOW_UPDATE` (stream level): bytes its HTTP/2
    /// layer handed to the application. The measure of captures made before `consumed` existed, and now only where the
    /// platform gives no acknowledged-bytes count; elsewhere an HTTP/2 stream's `delivered` is `tcpAcked` like
    /// HTTP/1.1's, and this figure is `consumed`. At most what was sent; at least what the client consumed minus one
    /// window update's worth (clients grant in batches).
    case h2WindowUpdate = "h2-window-update"
    /// An HTTP/2 stream whose last frame (END_STREAM) the client's TCP acknowledged (HTTP/2
    /// has no per-stream acknowledgement, and a finished stream gets no more WINDOW_UPDATE).
    case h2StreamEnded = "h2-stream-ended"
}
