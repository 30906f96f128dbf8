import Foundation
import RangeTapSystem

/// A cache in another process, speaking the JSON-lines protocol of `docs/cache-protocol.md`
/// on its stdin and stdout. A crash, a hang past the timeout or a malformed answer is an error
/// (and the replay is then not verified).
public final class ExternalCache: RangeCache {
    public let name: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let timeout: Double
    private var buffer = Data()
    private var evicted = 0

    /// Starts `command` with `/bin/sh -c "exec COMMAND"`; `timeout` bounds each answer, in seconds.
    public init(command: String, timeout: Double = 10) throws {
        self.timeout = timeout
        name = "command: \(command)"
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // exec: the cache is the process itself (not a child of sh), so stopping it stops the cache.
        process.arguments = ["-c", "exec " + command]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw ReplayError.externalCache("cannot start \(command): \(error)")
        }
        System.ignoreSignal(SIGPIPE)
        _ = try call(["op": "hello", "version": 1])
    }

    public var evictions: Int {
        (try? call(["op": "stats"]))?["evictions"] as? Int ?? evicted
    }

    public func resourceInfo(_ info: ResourceInfo) throws {
        var m: [String: Any] = ["op": "info", "url": info.url, "supportsRanges": info.supportsRanges]
        if let l = info.length { m["length"] = l }
        if let t = info.contentType { m["contentType"] = t }
        _ = try call(m)
    }

    public func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws {
        _ = try call([
            "op": "store", "url": resource, "offset": offset, "exchange": exchange, "data": bytes.base64EncodedString(),
        ])
    }

    public func exchangeEnded(resource: String, exchange: Int, complete: Bool) throws {
        _ = try call(["op": "end", "url": resource, "exchange": exchange, "complete": complete])
    }

    public func read(resource: String, range: Range<Int64>) throws -> Data {
        let answer = try call([
            "op": "read", "url": resource, "offset": range.lowerBound, "length": range.upperBound - range.lowerBound,
        ])
        guard let text = answer["data"] as? String, let data = Data(base64Encoded: text) else {
            throw ReplayError.externalCache("answer to read has no base64 \"data\": \(answer)")
        }
        return data
    }

    deinit {
        if process.isRunning {
            _ = try? call(["op": "bye"], expectAnswer: false)
            try? input.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            // A hung cache must not outlive the replay (SIGTERM may be blocked or ignored).
            if process.isRunning { System.kill(process.processIdentifier) }
        }
    }

    @discardableResult
    private func call(_ message: [String: Any], expectAnswer: Bool = true) throws -> [String: Any] {
        guard process.isRunning else {
            throw ReplayError.externalCache("the cache process exited (status \(process.terminationStatus))")
        }
        var line = try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])
        line.append(UInt8(ascii: "\n"))
        do {
            try input.fileHandleForWriting.write(contentsOf: line)
        } catch {
            throw ReplayError.externalCache("the cache process stopped reading its stdin: \(error)")
        }
        guard expectAnswer else { return [:] }
        let reply = try readLine(op: message["op"] as? String ?? "?")
        guard let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any] else {
            throw ReplayError.externalCache(
                "answered garbage to \(message["op"] ?? "?"): \(String(decoding: reply.prefix(200), as: UTF8.self))")
        }
        guard object["ok"] as? Bool == true else {
            throw ReplayError.externalCache("refused \(message["op"] ?? "?"): \(object["error"] ?? object)")
        }
        return object
    }

    private func readLine(op: String) throws -> Data {
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<nl]
                buffer = Data(buffer[buffer.index(after: nl)...])
                return Data(line)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw ReplayError.externalCache("no answer to \(op) within \(timeout) s (hung?)") }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let got: Int?
            do throws(SystemError) {
                got = try System.read(fd, into: &chunk, waiting: Int32(min(left, 1) * 1000))
            } catch {
                got = 0  // a failed read: the pipe is as good as closed
            }
            guard let n = got else { continue }  // nothing yet
            guard n > 0 else {
                throw ReplayError.externalCache("the cache process closed its stdout (crashed?) while answering \(op)")
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
