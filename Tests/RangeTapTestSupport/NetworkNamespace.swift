import Foundation
import Synchronization

/// A network namespace of the test's own (`ip netns`), joined to this one by a veth pair on a
/// /30 of its own: a client there has an address of its own (``clientAddress``) and reaches this
/// namespace at ``hostAddress``, as a phone on the LAN reaches the machine that records. Needs
/// root (CAP_NET_ADMIN) and iproute2. ``remove()`` deletes the pair and the namespace.
public final class NetworkNamespace: @unchecked Sendable {
    /// The namespace's name.
    public let name: String
    /// This side's address (where the proxy listens for the namespace's clients).
    public let hostAddress: String
    /// The namespace side's address.
    public let clientAddress: String
    private let hostLink: String
    private static let counter = Atomic<Int>(0)

    public init() throws {
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        let n = Self.counter.add(1, ordering: .relaxed).newValue
        // Distinct per process and per namespace, so suites running at once do not collide.
        let tag = (pid * 8 + n) % (64 * 256 * 64)
        let a = 64 + tag / (256 * 64) % 64, b = tag / 64 % 256, c = (tag % 64) * 4
        name = "rt\(pid)x\(n)"
        hostLink = "rth\(tag)"
        hostAddress = "10.\(a).\(b).\(c + 1)"
        clientAddress = "10.\(a).\(b).\(c + 2)"
        let ip = try Paths.tool("ip")
        func run(_ args: [String]) throws {
            let r = try runCommand(ip, args, timeout: 20)
            guard r.status == 0 else { throw TestFailure("ip \(args.joined(separator: " ")): \(r.stderr)") }
        }
        try run(["netns", "add", name])
        do {
            let peer = "rtn\(tag)"
            try run(["link", "add", hostLink, "type", "veth", "peer", "name", peer])
            try run(["link", "set", peer, "netns", name])
            try run(["addr", "add", hostAddress + "/30", "dev", hostLink])
            try run(["link", "set", hostLink, "up"])
            try run(["netns", "exec", name, "ip", "addr", "add", clientAddress + "/30", "dev", peer])
            try run(["netns", "exec", name, "ip", "link", "set", peer, "up"])
            try run(["netns", "exec", name, "ip", "link", "set", "lo", "up"])
        } catch {
            remove()
            throw error
        }
    }

    /// Runs `executable` inside the namespace.
    public func run(_ executable: String, _ arguments: [String], timeout: Double = 60) throws -> CommandResult {
        try runCommand(try Paths.tool("ip"), ["netns", "exec", name, executable] + arguments, timeout: timeout)
    }

    /// Deletes the veth pair and the namespace.
    public func remove() {
        guard let ip = try? Paths.tool("ip") else { return }
        _ = try? runCommand(ip, ["link", "del", hostLink], timeout: 20)
        _ = try? runCommand(ip, ["netns", "del", name], timeout: 20)
    }

    deinit { remove() }
}
