import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on 127.0.0.1 that sends exact bytes and reads exact bytes: the wire truth
/// a test compares the proxy against.
public final class RawClient {
    /// The socket.
    public let fd: Int32

    /// Connects to `127.0.0.1:port`; `receiveBuffer` sets SO_RCVBUF before connecting.
    public init(port: Int, receiveBuffer: Int? = nil, timeoutSeconds: Int = 20) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError.failed("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw RawClientError.failed("connect to port \(port): \(String(cString: strerror(errno)))")
        }
    }

    private var closed = false

    deinit { close() }

    /// Closes the socket (a reset if unread bytes are queued, as a player's close is).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Sends every byte of `text` (Latin-1: one byte per character).
    public func send(_ text: String) throws {
        try send(Array(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }))
    }

    /// Sends every byte.
    public func send(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw RawClientError.failed("send: \(String(cString: strerror(errno)))") }
            done += n
        }
    }

    private var buffered: [UInt8] = []

    /// Reads until a blank line ends a head; returns the head's bytes (blank line included).
    /// Bytes after it stay buffered for ``readBody(count:)``.
    public func readHead() throws -> [UInt8] {
        while true {
            if let end = Self.headEnd(buffered) {
                let head = Array(buffered[..<end])
                buffered.removeFirst(end)
                return head
            }
            guard try fill(max: 1024) > 0 else {
                throw RawClientError.failed("connection closed before the head ended (\(buffered.count) bytes)")
            }
        }
    }

    /// Reads exactly `count` bytes (fewer if the peer closes first).
    public func read(count: Int) throws -> [UInt8] {
        while buffered.count < count {
            guard try fill(max: count - buffered.count) > 0 else { break }
        }
        let n = min(count, buffered.count)
        let out = Array(buffered[..<n])
        buffered.removeFirst(n)
        return out
    }

    /// Reads until the peer closes.
    public func readToClose() throws -> [UInt8] {
        while try fill() > 0 {}
        defer { buffered.removeAll() }
        return buffered
    }

    /// The socket's receive buffer now (SO_RCVBUF, as the kernel reports it).
    public var receiveBufferSize: Int {
        var size: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &len)
        return Int(size)
    }

    /// Bytes sitting in the kernel's receive queue, not yet read.
    public var unreadInKernel: Int {
        var n: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &n)
        return Int(n)
    }

    /// Bytes taken from the kernel so far (what the client application really read).
    public private(set) var bytesRead = 0

    private func fill(max: Int = 64 * 1024) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: Swift.max(1, Swift.min(max, 64 * 1024)))
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        if n < 0 {
            if errno == ECONNRESET { return 0 }
            throw RawClientError.failed("recv: \(String(cString: strerror(errno)))")
        }
        buffered.append(contentsOf: chunk[..<n])
        bytesRead += n
        return n
    }

    private static func headEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 2 else { return nil }
        for i in 1..<b.count where b[i] == 10 {
            if b[i - 1] == 10 { return i + 1 }
            if i >= 3, b[i - 1] == 13, b[i - 2] == 10 { return i + 1 }
        }
        return nil
    }
}

/// A raw client failed; the text says where.
public struct RawClientError: Error, CustomStringConvertible {
    let text: String
    static func failed(_ text: String) -> RawClientError { RawClientError(text: text) }
    public var description: String { text }
}

extension Array where Element == UInt8 {
    /// The bytes as Latin-1 text.
    public var latin1: String { String(String.UnicodeScalarView(map { Unicode.Scalar($0) })) }
}
