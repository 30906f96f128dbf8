/// Body bytes handed to the capture writer without copying (a NIO `ByteBuffer` conforms in
/// the proxy module; `[UInt8]` here, for tests and tools).
public protocol CaptureBytes: Sendable {
    /// Number of bytes.
    var captureByteCount: Int { get }
    /// Calls `body` with the bytes.
    func withCaptureBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: CaptureBytes where Element == UInt8 {
    /// Number of bytes.
    public var captureByteCount: Int { count }
    /// Calls `body` with the bytes.
    public func withCaptureBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(body)
    }
}
