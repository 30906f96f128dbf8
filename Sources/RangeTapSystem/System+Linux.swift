#if os(Linux)
import Glibc

// MARK: - Clocks

extension System {
    /// `CLOCK_MONOTONIC` in nanoseconds: the clock every capture event is stamped with.
    @inlinable @inline(__always)
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// `CLOCK_REALTIME` in nanoseconds since the Unix epoch.
    @inlinable
    public static func wallClockNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

// MARK: - Errors and the process

extension System {
    /// The C library's text for `errno` value `code`.
    public static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// This process's id.
    public static var processID: Int32 { getpid() }

    /// The real user id of this process.
    public static var userID: UInt32 { getuid() }

    /// Whether descriptor `fd` is a terminal (0, 1, 2: standard input, output, error).
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Ignores signal `number` (`SIG_IGN`): for signals a dispatch source handles instead, and
    /// for `SIGPIPE`, whose default would end the process on a write to a closed pipe.
    public static func ignoreSignal(_ number: Int32) { signal(number, SIG_IGN) }

    /// Sends `SIGKILL` to process `pid`.
    public static func kill(_ pid: Int32) { _ = Glibc.kill(pid, SIGKILL) }
}

// MARK: - Files and descriptors

extension System {
    /// What `stat(2)` says about `path`; nil when there is nothing there.
    public static func status(_ path: String, followLinks: Bool = true) -> FileStatus? {
        var info = stat()
        guard (followLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        let kind: FileKind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFSOCK: kind = .socket
        case S_IFCHR, S_IFBLK: kind = .device
        default: kind = .other
        }
        var status = FileStatus(
            kind: kind, size: Int64(info.st_size), permissions: UInt32(info.st_mode & 0o7777), owner: info.st_uid)
        status.modified = Int64(info.st_mtim.tv_sec)
        status.modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
        status.identity = (UInt64(info.st_dev), UInt64(info.st_ino))
        return status
    }

    /// The real path of `path`: absolute, every symbolic link and `.`/`..` resolved; nil when
    /// it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens `path` to append to it, created with mode 0644 or truncated (a capture's files).
    public static func openForAppending(_ path: String) throws(SystemError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(code: errno) }
        return fd
    }

    /// Opens `path` to append to it, created with mode 0600 (it will hold secrets) and kept if
    /// it exists: a TLS key log, which NSS's format appends to.
    public static func openForAppendingPrivately(_ path: String) throws(SystemError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError(code: errno) }
        return fd
    }

    /// Sets the environment variable `name` of this process to `value` (for a library that
    /// reads it, such as libcurl's `SSLKEYLOGFILE`).
    public static func setEnvironment(_ name: String, _ value: String) { _ = setenv(name, value, 1) }

    /// The environment variable `name` of this process, if set.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Opens `path` read-only.
    public static func openForReading(_ path: String) throws(SystemError) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(code: errno) }
        return fd
    }

    /// Creates `path` with `mode` from the start and opens it for writing; never over an
    /// existing file or through a symbolic link (`O_EXCL | O_NOFOLLOW`).
    public static func createExclusively(_ path: String, mode: UInt32) throws(SystemError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw SystemError(code: errno) }
        return fd
    }

    /// Sets the permission bits of the open file `fd` (past the process's umask).
    public static func setPermissions(_ fd: Int32, _ mode: UInt32) { _ = fchmod(fd, mode_t(mode)) }

    /// Closes descriptor `fd`.
    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// A close-on-exec duplicate of descriptor `fd`; nil when the process has no descriptor left.
    public static func duplicate(_ fd: Int32) -> Int32? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    /// Writes all of `raw` to `fd`, retrying short writes and `EINTR`.
    public static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) throws(SystemError) {
        var done = 0
        while done < raw.count {
            let n = write(fd, raw.baseAddress! + done, raw.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(code: errno)
            }
            done += n
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and `EINTR`.
    public static func writeAll(_ fd: Int32, bytes: [UInt8]) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try writeAll(fd, raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes all of `buffers` to `fd` in order with `writev(2)` (at most `IOV_MAX` of them),
    /// retrying short writes and `EINTR`; how many bytes were written, and the error that
    /// stopped it, if one did.
    public static func writeAll(
        _ fd: Int32, gathering buffers: [UnsafeRawBufferPointer]
    ) -> (
        count: Int, error: SystemError?
    ) {
        var vectors = buffers.filter { $0.count > 0 }.map {
            iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
        }
        var done = 0
        var first = 0
        while first < vectors.count {
            let n = vectors[first...].withUnsafeBufferPointer { writev(fd, $0.baseAddress, Int32($0.count)) }
            if n < 0 {
                if errno == EINTR { continue }
                return (done, SystemError(code: errno))
            }
            done += n
            // Skip what was written; a vector written in part starts further on.
            var left = n
            while first < vectors.count, left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base = vectors[first].iov_base.map { $0 + left }
                vectors[first].iov_len -= left
            }
        }
        return (done, nil)
    }

    /// Reads into `buffer` from `fd` at `offset` (`pread(2)`: no shared file position), retrying
    /// `EINTR`; how many bytes were read, 0 at the end of the file.
    public static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    )
        throws(SystemError) -> Int
    {
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw SystemError(code: errno) }
        }
    }

    /// Reads what is there from `fd` into `buffer`, waiting at most `milliseconds` for it
    /// (`poll(2)`, then `read(2)`): nil when nothing came in time, 0 at the end.
    public static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, waiting milliseconds: Int32
    )
        throws(SystemError) -> Int?
    {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, milliseconds)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw SystemError(code: errno)
        }
        guard ready > 0 else { return nil }
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        guard n >= 0 else { throw SystemError(code: errno) }
        return n
    }

    /// The `errno` of a file that already exists (`EEXIST`).
    public static let fileExists = EEXIST

    /// ``read(_:into:waiting:)`` into the start of `buffer`.
    public static func read(
        _ fd: Int32, into buffer: inout [UInt8], waiting milliseconds: Int32
    )
        throws(SystemError) -> Int?
    {
        var result: Result<Int?, SystemError> = .success(nil)
        buffer.withUnsafeMutableBytes { raw in
            do throws(SystemError) { result = .success(try read(fd, into: raw, waiting: milliseconds)) } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// Creates directory `path` with `mode`; an existing one is fine.
    public static func makeDirectory(_ path: String, mode: UInt32) throws(SystemError) {
        if mkdir(path, mode_t(mode)) != 0 && errno != EEXIST { throw SystemError(code: errno) }
    }

    /// Renames `from` to `to`, replacing `to` atomically.
    public static func rename(_ from: String, to: String) throws(SystemError) {
        guard Glibc.rename(from, to) == 0 else { throw SystemError(code: errno) }
    }

    /// Removes the file `path`, if there is one.
    public static func remove(_ path: String) { _ = unlink(path) }
}

// MARK: - Sockets and addresses

extension System {
    /// Bytes the peer's TCP stack acknowledged on socket `fd` (`tcpi_bytes_acked` of the
    /// kernel's TCP information, Linux 4.1+); nil when the kernel gives none.
    public static func tcpBytesAcknowledged(_ fd: Int32) -> Int64? {
        var info = TCPInformationHead()
        var length = socklen_t(MemoryLayout<TCPInformationHead>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0, length >= 128 else { return nil }
        return Int64(info.bytesAcked)
    }

    /// Whether this platform tells how many bytes a TCP peer acknowledged.
    public static let tellsAcknowledgedBytes = true

    /// The 4 bytes of an IPv4 address as `inet_aton` reads it (`127.1`, `0x7f000001`, …).
    public static func ipv4Bytes(lenient text: String) -> [UInt8]? {
        var a = in_addr()
        guard inet_aton(text, &a) != 0 else { return nil }
        return withUnsafeBytes(of: &a) { Array($0) }
    }

    /// The 4 bytes of a dotted-quad IPv4 address (`inet_pton`).
    public static func ipv4Bytes(_ text: String) -> [UInt8]? {
        var a = in_addr()
        guard inet_pton(AF_INET, text, &a) == 1 else { return nil }
        return withUnsafeBytes(of: &a) { Array($0) }
    }

    /// The 16 bytes of an IPv6 address (`inet_pton`).
    public static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var a = in6_addr()
        guard inet_pton(AF_INET6, text, &a) == 1 else { return nil }
        return withUnsafeBytes(of: &a) { Array($0) }
    }

    /// RFC 5952 text of the 16 bytes of an IPv6 address (`inet_ntop`).
    public static func ipv6Text(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        var a = in6_addr()
        withUnsafeMutableBytes(of: &a) { $0.copyBytes(from: bytes) }
        var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &a, &out, socklen_t(out.count)) != nil else { return nil }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The addresses (4 or 16 bytes each) `getaddrinfo` gives for stream sockets to `name`;
    /// empty when it does not resolve.
    public static func resolve(_ name: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var out: [[UInt8]] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if let a = n.pointee.ai_addr, let bytes = addressBytes(a) { out.append(bytes) }
            node = n.pointee.ai_next
        }
        return out
    }

    /// The addresses of this machine's interfaces (`getifaddrs`).
    public static func interfaceAddresses() -> [[UInt8]] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var out: [[UInt8]] = []
        var node: UnsafeMutablePointer<ifaddrs>? = first
        while let n = node {
            if let a = n.pointee.ifa_addr, let bytes = addressBytes(a) { out.append(bytes) }
            node = n.pointee.ifa_next
        }
        return out
    }

    private static func addressBytes(_ address: UnsafeMutablePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// Connects to the Unix socket at `path`, sends `request`, and reads the answer to the
    /// peer's close (at most `limit` bytes, each read waiting at most `timeoutSeconds`).
    public static func unixExchange(
        path: String, request: [UInt8], timeoutSeconds: Int, limit: Int
    ) throws(SocketExchangeError) -> [UInt8] {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .failed(SystemError(code: errno)) }
        defer { _ = Glibc.close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw .failed(SystemError(code: errno)) }
        return try exchange(fd, request: request, limit: limit)
    }

    /// Sends `request` on the connected `fd` and reads the answer to the close.
    private static func exchange(_ fd: Int32, request: [UInt8], limit: Int) throws(SocketExchangeError) -> [UInt8] {
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw .failed(SystemError(code: errno)) }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < limit {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { throw .failed(SystemError(code: errno)) }
            if n == 0 { break }
            answer += buffer[..<n]
        }
        return answer
    }
}

/// Why ``System/unixExchange(path:request:timeoutSeconds:limit:)`` failed.
public enum SocketExchangeError: Error, Sendable, CustomStringConvertible {
    /// A Unix socket path longer than the 107 bytes `sockaddr_un` holds.
    case pathTooLong(String)
    /// A system call failed.
    case failed(SystemError)

    public var description: String {
        switch self {
        case .pathTooLong(let path): "the socket path \(path) is longer than 107 bytes"
        case .failed(let error): error.text
        }
    }
}

/// The head of Linux's `struct tcp_info` up to `tcpi_bytes_acked` (kernel 4.1+): glibc's
/// `tcp_info` stops at `tcpi_total_retrans` (104 bytes); the kernel fills what fits.
struct TCPInformationHead {
    var classic = tcp_info()
    var pacingRate: UInt64 = 0
    var maxPacingRate: UInt64 = 0
    /// Bytes the peer acknowledged (RFC 4898 tcpEStatsAppHCThruOctetsAcked), at offset 120.
    var bytesAcked: UInt64 = 0
}
#endif
