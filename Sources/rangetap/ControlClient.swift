import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One request to a local rangetap over a plain TCP socket, the answer read to the close: for
/// `rangetap shape`, which must not itself go through a proxy or an HTTP stack.
enum ControlClient {
    /// The connection failed.
    struct Failure: Error {
        let reason: String
    }

    /// Sends `request` to `host:port` (numeric) and returns the status and body of the answer.
    static func exchange(host: String, port: Int, request: [UInt8]) throws(Failure) -> (Int, String) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &info) == 0, let ai = info else {
            throw Failure(reason: "\(host) is not a numeric address")
        }
        defer { freeaddrinfo(info) }
        let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
        guard fd >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
            throw Failure(reason: String(cString: strerror(errno)))
        }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(reason: String(cString: strerror(errno))) }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < 1 << 20 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { throw Failure(reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            answer += buffer[..<n]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/"), let space = text.firstIndex(of: " "),
            let status = Int(text[text.index(after: space)...].prefix(3))
        else {
            throw Failure(reason: "it did not answer in HTTP")
        }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }
}
