/// A request body that libcurl reads as it sends it (`CURLOPT_READFUNCTION`), called on the
/// multi thread: the proxy streams a client's upload through one, so the body is never held
/// whole.
public protocol CurlBodySource: AnyObject, Sendable {
    /// Copies the body's next bytes into `buffer`. Multi thread.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> CurlReadResult
}

/// What a ``CurlBodySource`` read gives libcurl.
public enum CurlReadResult: Sendable, Equatable {
    /// This many bytes were copied (more than zero).
    case bytes(Int)
    /// The body has ended.
    case end
    /// No bytes yet: the transfer's sending pauses until ``CurlMulti/unpauseSending(_:)``.
    case pause
    /// The body cannot be completed: the transfer fails (`CURLE_ABORTED_BY_CALLBACK`).
    case abort
}
