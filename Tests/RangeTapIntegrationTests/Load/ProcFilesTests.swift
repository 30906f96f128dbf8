import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RangeTapTestSupport
import Testing

/// The `/proc` readers the leak and socket tests count with. `String(contentsOfFile:)` read one
/// page of `/proc/net/tcp` (about 26 sockets) and missed every socket past it, so a leak check
/// on a busy test process could count fewer sockets than were open.
@Suite(.serialized)
struct ProcFilesTests {
    #if os(Linux)
    @Test func everySocketIsFoundWhenTheTableIsLongerThanAPage() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound && listen(listener, 256) == 0)
        let port = Int(UInt16(bigEndian: addr.sin_port))
        let count = 150
        var clients: [RawClient] = []
        defer { clients.forEach { $0.close() } }
        for _ in 0..<count { clients.append(try RawClient(port: port)) }
        var accepted: [Int32] = []
        defer { accepted.forEach { close($0) } }
        for _ in 0..<count {
            let fd = accept(listener, nil, nil)
            try #require(fd >= 0)
            accepted.append(fd)
        }
        // Far more than one page's worth of rows, so the test reads past the first page.
        let rows = ProcFiles.tcpRows()
        #expect(rows.count > 2 * count, "\(rows.count) rows")
        #expect(ProcFiles.text("/proc/net/tcp")?.utf8.count ?? 0 > 4 * 4096)
        // The clients' descriptors (remote port = the listener) and the accepted ones plus the
        // listener (local port = the listener), each exactly once.
        let toListener = ProcFiles.socketDescriptors { $0.remotePort == port }
        #expect(Set(toListener) == Set(clients.map(\.fd)), "\(toListener.count) of \(count) client sockets found")
        let onListener = ProcFiles.socketDescriptors { $0.localPort == port }
        #expect(Set(onListener) == Set(accepted + [listener]), "\(onListener.count) of \(count + 1) found")
    }
    #endif
}
