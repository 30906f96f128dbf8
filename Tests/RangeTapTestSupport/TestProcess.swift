import Foundation

/// A child process started by a test, stopped by its PID.
public final class TestProcess: @unchecked Sendable {
    /// The process.
    public let process: Process
    private let stdoutPipe = Pipe()
    private let stderrPath: String

    /// Starts `executable` with `arguments`; stderr goes to a temporary file (see ``stderrText``).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil
    ) throws {
        process = Process()
        // Children inherit the test runner's blocked signal mask, so they would ignore SIGTERM:
        // exec them through a shim that clears it.
        process.executableURL = URL(fileURLWithPath: cleanSignalShim.executable)
        process.arguments = cleanSignalShim.arguments + [executable] + arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        stderrPath = Paths.temporaryRoot + "/rangetap-proc-\(UUID().uuidString).err"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// PID.
    public var pid: Int32 { process.processIdentifier }

    /// Reads stdout lines until one starts with `prefix`, within `timeout` seconds.
    public func waitForLine(prefix: String, timeout: Double = 10) throws -> String {
        let handle = stdoutPipe.fileHandleForReading
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = Data()
        while Date() < deadline {
            var fds = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&fds, 1, 100) > 0 {
                let data = handle.availableData
                if data.isEmpty { break }
                buffer.append(data)
                for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.hasPrefix(prefix)
                {
                    return String(line)
                }
            }
        }
        throw TestFailure(
            "\(process.executableURL?.lastPathComponent ?? "process") printed no line starting with \(prefix) within \(timeout)s; stderr: \(stderrText.suffix(2000))"
        )
    }

    /// Everything written to stderr so far.
    public var stderrText: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` and waits (bounded) for the exit.
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 3) {
        if process.isRunning { kill(pid, signal) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: stderrPath)
    }
}

/// The result of running a command to its end.
public struct CommandResult: Sendable {
    /// Exit status.
    public var status: Int32
    /// Standard output.
    public var stdout: Data
    /// Standard error.
    public var stderr: String
    /// Standard output as text.
    public var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs a command to completion (bounded by `timeout` seconds) and collects its output.
public func runCommand(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
    timeout: Double = 60
) throws -> CommandResult {
    let p = Process()
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    p.executableURL = URL(fileURLWithPath: cleanSignalShim.executable)
    p.arguments = cleanSignalShim.arguments + [executable] + arguments
    if let environment { p.environment = environment }
    let out = Paths.temporaryRoot + "/rangetap-cmd-\(UUID().uuidString)"
    _ = FileManager.default.createFile(atPath: out + ".out", contents: nil)
    _ = FileManager.default.createFile(atPath: out + ".err", contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: out + ".out")
        try? FileManager.default.removeItem(atPath: out + ".err")
    }
    p.standardOutput = FileHandle(forWritingAtPath: out + ".out")
    p.standardError = FileHandle(forWritingAtPath: out + ".err")
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(5_000) }
    if p.isRunning {
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        throw TestFailure("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout)s")
    }
    return CommandResult(
        status: p.terminationStatus,
        stdout: (try? Data(contentsOf: URL(fileURLWithPath: out + ".out"))) ?? Data(),
        stderr: (try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? "")
}

/// A test precondition that did not hold, with a message saying which.
public struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// Creates a failure.
    public init(_ description: String) { self.description = description }
}

/// `python3 -c …` that unblocks all signals and execs its arguments.
let cleanSignalShim: (executable: String, arguments: [String]) = (
    (try? Paths.tool("python3")) ?? "/usr/bin/python3",
    [
        "-c",
        "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
    ]
)
