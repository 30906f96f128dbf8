import Foundation

/// A program `ca trust` runs (certutil, update-ca-certificates), found on `PATH` and the sbin
/// directories, its output kept for the message when it fails.
struct TrustTool {
    /// Why a tool could not do its part.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let name: String
    let path: String

    /// Finds `name`, or fails naming the Debian package that has it.
    init(_ name: String, package: String) throws(Failure) {
        let directories =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/sbin", "/usr/bin"]
        guard let found = directories.map({ $0 + "/" + name }).first(where: FileManager.default.isExecutableFile)
        else {
            throw Failure(description: "\(name) is not installed (Debian: apt-get install \(package))")
        }
        self.name = name
        path = found
    }

    /// Runs the tool with `arguments`; its status and what it printed (stdout and stderr).
    @discardableResult
    func run(_ arguments: [String], failing: Bool = true) throws(Failure) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run \(path): \(error.localizedDescription)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if failing && process.terminationStatus != 0 {
            throw Failure(
                description:
                    "\(name) \(arguments.joined(separator: " ")) failed (status \(process.terminationStatus)): \(output)"
            )
        }
        return (process.terminationStatus, output)
    }
}
