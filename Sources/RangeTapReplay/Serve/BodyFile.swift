import RangeTapSystem

/// `body.bin` of a capture, read with `pread(2)` so any number of connections can read it at
/// once without sharing a file position.
final class BodyFile: Sendable {
    private let fd: Int32
    /// The file's path.
    let path: String

    /// Opens `path` read-only.
    init(path: String) throws(FixtureError) {
        do throws(SystemError) {
            self.fd = try System.openForReading(path)
        } catch {
            throw .cannotRead(path, error.text)
        }
        self.path = path
    }

    /// `count` bytes at `offset`, appended to `into`.
    func read(at offset: Int64, count: Int, into out: inout [UInt8]) throws(FixtureError) {
        guard count > 0 else { return }
        out += try read(at: offset, count: count)
    }

    /// `count` bytes at `offset`.
    func read(at offset: Int64, count: Int) throws(FixtureError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset >= 0, offset.addingChecked(Int64(count)) != nil else {
            throw .cannotRead(path, "\(count) bytes at offset \(offset) are not a place in a file")
        }
        var failure: FixtureError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n: Int
                do throws(SystemError) {
                    n = try System.read(
                        fd, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[done...])),
                        at: offset + Int64(done))
                } catch {
                    failure = .cannotRead(path, error.text)
                    break
                }
                guard n > 0 else {
                    failure = .cannotRead(path, "it ends before offset \(offset + Int64(count))")
                    break
                }
                done += n
            }
            initialized = failure == nil ? count : 0
        }
        if let failure { throw failure }
        return bytes
    }

    deinit { System.close(fd) }
}
