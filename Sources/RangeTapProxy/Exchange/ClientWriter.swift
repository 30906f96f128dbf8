import NIOCore
import NIOHTTP1
import RangeTapCore

/// The client side of one exchange as ``ExchangeDriver`` sees it: an HTTP/1.1 connection
/// (``ProxyHandler``) or an HTTP/2 stream (``H2StreamHandler``). The driver decides what to
/// write and when; the writer only puts it on its wire, in its protocol's framing, and reports
/// back what the client did (``ExchangeDriver/writeCompleted(_:written:)``,
/// ``ExchangeDriver/clientClosed(_:)``, ``ExchangeDriver/clientReceivedAll(_:)``). Event loop only.
protocol ClientWriter: AnyObject {
    /// Writes an interim (1xx) head.
    func writeInterim(_ head: ClientHead, for driver: ExchangeDriver)
    /// Writes the final response head.
    func writeHead(_ head: ClientHead, for driver: ExchangeDriver)
    /// Writes body bytes, reporting each piece's completion to
    /// ``ExchangeDriver/writeCompleted(_:written:)``. `last` (HTTP/2 only): they end the body
    /// the head declared, and their frame ends the stream.
    func writeBody(_ buffer: ByteBuffer, last: Bool, for driver: ExchangeDriver)
    /// Ends the response (trailer lines for a chunked or HTTP/2 body); closes the connection
    /// afterwards if `close`. `bodyEnded` (HTTP/2 only): the last body write already ended the
    /// stream, and the end is that write.
    func writeEnd(close: Bool, trailers: [String], bodyEnded: Bool, for driver: ExchangeDriver)
    /// Answers with rangetap's own error response (no head was sent yet).
    func respond(_ status: HTTPResponseStatus, message: String, for driver: ExchangeDriver)
    /// A failure after the head was sent: the connection closes (HTTP/1.1) or the stream is reset.
    func abandon(for driver: ExchangeDriver)
    /// A `reset-after` or `truncate-after` rule cut the response here (the driver has recorded it
    /// and stopped the upstream transfer): reset, or end early.
    func cut(reset: Bool, for driver: ExchangeDriver)
    /// How a cut reads in the capture: what was reset or ended, after how many body bytes.
    func describeCut(reset: Bool, forwarded: Int64, rule: String) -> String
    /// The head as the client got it, for the `fault` event of a rule that rewrote it; nil to
    /// record the lines the rule made.
    func headAsWritten(for driver: ExchangeDriver) -> [HeaderLine]?
    /// The exchange settled (or was cut): the writer lets it go.
    func finished(_ driver: ExchangeDriver)
}
