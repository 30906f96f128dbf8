import Foundation

/// Reading Linux's `/proc` in tests. Its files report a size of 0, and `String(contentsOfFile:)`
/// stops after the first read, one page: `/proc/net/tcp` holds about 26 sockets in that page, so
/// on a busy test process every socket past them went unseen. These read until end of file.
public enum ProcFiles {
    /// The whole text of `path`, read until end of file; nil when it cannot be opened.
    public static func text(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// One row of `/proc/net/tcp` or `tcp6`: the socket's local and remote port and its inode.
    public struct TCPRow: Sendable, Equatable {
        /// The local port.
        public let localPort: Int
        /// The remote port.
        public let remotePort: Int
        /// The socket's inode, as `/proc/self/fd` links name it (`socket:[INODE]`).
        public let inode: Substring
    }

    /// Every row of `/proc/net/tcp` and `/proc/net/tcp6`.
    public static func tcpRows() -> [TCPRow] {
        var rows: [TCPRow] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = text(table) else { continue }
            for row in text.split(separator: "\n").dropFirst() {
                let fields = row.split(separator: " ")
                guard fields.count > 9 else { continue }
                let port = { (address: Substring) in
                    address.split(separator: ":").last.flatMap { Int($0, radix: 16) } ?? -1
                }
                rows.append(TCPRow(localPort: port(fields[1]), remotePort: port(fields[2]), inode: fields[9]))
            }
        }
        return rows
    }

    /// This process's descriptors of the TCP sockets whose row `matches`, in ascending order
    /// (a socket with a duplicated descriptor appears once per descriptor).
    public static func socketDescriptors(where matches: (TCPRow) -> Bool) -> [Int32] {
        let inodes = Set(tcpRows().filter(matches).map(\.inode))
        guard !inodes.isEmpty else { return [] }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { fd -> Int32? in
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd),
                link.hasPrefix("socket:["), link.hasSuffix("]"),
                inodes.contains(Substring(link.dropFirst(8).dropLast()))
            else { return nil }
            return Int32(fd)
        }.sorted()
    }
}
