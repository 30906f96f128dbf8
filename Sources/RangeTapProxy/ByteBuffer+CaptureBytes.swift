import NIOCore
import RangeTapCore

extension ByteBuffer: CaptureBytes {
    /// Readable bytes.
    public var captureByteCount: Int { readableBytes }
    /// Calls `body` with the readable bytes, without copying.
    public func withCaptureBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeReadableBytes(body)
    }
}
