import Foundation

/// Says exactly what is wrong with a line of `events.jsonl` that did not decode: invalid
/// UTF-8, not JSON, not an object, a missing `type`, or the first field whose JSON type is
/// not the one its event needs ("field \"ex\" must be a whole number, found 1.5").
///
/// Only used once decoding failed, so its cost matters only on a very long line (see
/// ``scannedProblem(_:)``).
enum CaptureLineDiagnosis {
    /// What a field holds.
    enum Kind {
        case integer, string, bool, strings

        var noun: String {
            switch self {
            case .integer: "a whole number"
            case .string: "a string"
            case .bool: "true or false"
            case .strings: "an array of strings"
            }
        }
    }

    /// Kinds of every key events use (`version` depends on the type).
    static func kind(of key: String, type: String) -> Kind? {
        switch key {
        case "t", "ex", "conn", "sndbuf", "requests", "status", "upstreamPort", "size", "off", "res", "at",
            "bytes", "delivered", "served", "received", "curlCode", "opened", "up", "down":
            .integer
        case "version": type == "request" ? .string : .integer
        case "type", "tool", "startedAt", "listen", "upstream", "peer", "by", "method", "target", "url",
            "sha256", "kind", "message", "authority":
            .string
        case "bodies", "hashes", "redacted", "reused": .bool
        case "headers", "lines", "trailers": .strings
        default: nil
        }
    }

    /// Keys in the order they are checked (the order the writer writes them in).
    static let keyOrder = [
        "t", "opened", "ex", "conn", "version", "tool", "startedAt", "bodies", "hashes", "redacted", "listen",
        "upstream",
        "peer", "sndbuf", "by", "requests", "method", "target", "url", "headers", "status", "reused",
        "upstreamPort", "lines", "size", "off", "res", "at", "bytes", "sha256", "trailers", "delivered",
        "served", "received", "kind", "message", "curlCode", "authority", "up", "down",
    ]

    /// The reason `line` is not a valid event, or nil when no specific problem is found.
    static func diagnose(_ line: Data) -> String? {
        guard String(validating: line, as: UTF8.self) != nil else {
            return
                "not valid UTF-8 (\(firstInvalidUTF8(line).map { "at byte \($0 + 1) of the line" } ?? "somewhere in the line"))"
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: line)
        } catch {
            return "not valid JSON (\(scannedProblem(line) ?? jsonProblem(error)))"
        }
        guard case .object(let fields) = value else { return "not a JSON object but \(value.described)" }
        guard let typeValue = fields["type"] else { return "field \"type\" is missing" }
        guard case .string(let type) = typeValue else {
            return "field \"type\" must be a string, found \(typeValue.described)"
        }
        for key in keyOrder {
            guard let found = fields[key], let kind = kind(of: key, type: type), !found.matches(kind) else { continue }
            return "field \"\(key)\" must be \(kind.noun), found \(found.described)"
        }
        return nil
    }

    /// The deepest nesting an event line may have before it is named as the problem (events
    /// nest three levels).
    static let maxDepth = 64

    /// What one pass over `line` finds wrong that the JSON parser only calls invalid: a nesting
    /// deeper than ``maxDepth``, or a number no double holds (`1e400`). Nil when neither.
    ///
    /// Why over raw bytes, with a number kept as where it starts: a line of events.jsonl can be
    /// 100 MB, and the debug build took 15 s over one when each byte went through `Data`'s
    /// iterator and an array of the number's bytes.
    static func scannedProblem(_ line: Data) -> String? {
        line.withUnsafeBytes { scannedProblem(bytes: $0) }
    }

    /// What each byte is to ``scannedProblem(_:)``, by byte value.
    private enum ByteClass: UInt8 {
        case other, number, quote, backslash, open, close
    }

    private static let byteClasses: [ByteClass] = (0...255).map { (value: Int) -> ByteClass in
        switch UInt8(value) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            .number
        case UInt8(ascii: "\""): .quote
        case UInt8(ascii: "\\"): .backslash
        case UInt8(ascii: "["), UInt8(ascii: "{"): .open
        case UInt8(ascii: "]"), UInt8(ascii: "}"): .close
        default: .other
        }
    }

    private static func scannedProblem(bytes: UnsafeRawBufferPointer) -> String? {
        let classes = byteClasses
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        /// Where the run of number characters being read began.
        var numberStart: Int?
        func numberProblem(endingAt end: Int) -> String? {
            guard let start = numberStart else { return nil }
            numberStart = nil
            guard let text = String(bytes: bytes[start..<end], encoding: .ascii), let value = Double(text),
                !value.isFinite
            else { return nil }
            return "the number \(text.prefix(40)) does not fit in a double"
        }
        for i in 0..<bytes.count {
            let byteClass = classes[Int(bytes[i])]
            if inString {
                if escaped {
                    escaped = false
                } else if byteClass == .backslash {
                    escaped = true
                } else if byteClass == .quote {
                    inString = false
                }
                continue
            }
            if byteClass == .number {
                if numberStart == nil { numberStart = i }
                continue
            }
            if numberStart != nil, let problem = numberProblem(endingAt: i) { return problem }
            switch byteClass {
            case .quote: inString = true
            case .open:
                depth += 1
                deepest = max(deepest, depth)
            case .close: depth -= 1
            case .other, .number, .backslash: break
            }
        }
        if let problem = numberProblem(endingAt: bytes.count) { return problem }
        return deepest > maxDepth ? "arrays or objects nested \(deepest) levels deep; an event nests at most 3" : nil
    }

    /// What the JSON parser found wrong, in its words (a nesting too deep, a number that does not
    /// fit, a character where none may be), at most 200 characters.
    static func jsonProblem(_ error: any Error) -> String {
        var text: String
        if case DecodingError.dataCorrupted(let context) = error {
            text = context.debugDescription
            if let underlying = context.underlyingError { text += ": \(underlying)" }
        } else {
            text = "\(error)"
        }
        text = TerminalText.escapingControls(text)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// Index of the first byte that is not part of valid UTF-8.
    private static func firstInvalidUTF8(_ line: Data) -> Int? {
        let bytes = [UInt8](line)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length: Int
            switch b {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return i
            }
            guard i + length <= bytes.count else { return i }
            for j in 1..<length where bytes[i + j] & 0xC0 != 0x80 { return i }
            guard String(validating: bytes[i..<(i + length)], as: UTF8.self) != nil else { return i }
            i += length
        }
        return nil
    }
}

/// Any JSON value, decoded only to say what a field holds.
private enum JSONValue: Decodable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue]), object(
        [String: JSONValue])

    init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: AnyKey.self) {
            var fields: [String: JSONValue] = [:]
            for key in c.allKeys { fields[key.stringValue] = try c.decode(JSONValue.self, forKey: key) }
            self = .object(fields)
            return
        }
        if var c = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !c.isAtEnd { items.append(try c.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Int64.self) {
            self = .integer(n)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    func matches(_ kind: CaptureLineDiagnosis.Kind) -> Bool {
        switch (self, kind) {
        case (.integer, .integer), (.string, .string), (.bool, .bool): true
        case (.array(let items), .strings): items.allSatisfy { if case .string = $0 { true } else { false } }
        default: false
        }
    }

    var described: String {
        switch self {
        case .null: "null"
        case .bool(let b): String(b)
        case .integer(let n): String(n)
        case .number(let d): d.rounded() == d && abs(d) < 1e21 ? String(format: "%.0f", d) : String(d)
        case .string(let s): "\"" + (s.count > 40 ? s.prefix(40) + "…" : s) + "\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
