import Foundation

/// Reads the events a capture gains over time (`tail -f` for `events.jsonl`): each call to
/// ``next()`` returns the complete lines added since the last call.
public final class CaptureTail {
    private let handle: FileHandle
    private var lines = LineBuffer()
    private var lineNumber = 0
    private let decoder = JSONDecoder()
    /// The capture's header.
    public let header: CaptureHeader

    /// Opens a capture (which may still be being written).
    public init(path: String) throws {
        let reader = try CaptureReader(path: path)
        header = reader.header
        guard let h = FileHandle(forReadingAtPath: reader.path + "/events.jsonl") else {
            throw CaptureError.cannotOpen(path: path, reason: "events.jsonl is not readable")
        }
        handle = h
    }

    /// Events completed since the previous call (the header excluded).
    public func next() throws -> [CaptureEvent] {
        let data = handle.availableData
        if data.isEmpty { return [] }
        lines.append(data)
        var events: [CaptureEvent] = []
        while let line = lines.nextLine() {
            lineNumber += 1
            if lineNumber > 1, !line.isEmpty,
                let e = try CaptureEvent.decode(jsonLine: line, lineNumber: lineNumber, decoder: decoder)
            {
                events.append(e)
            }
        }
        return events
    }

    deinit { try? handle.close() }
}
