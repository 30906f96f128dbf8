import RangeTapCore

/// A small, bounded XML reader, enough for DASH MPDs: elements, attributes (either quote,
/// the five named entities and numeric references), self-closing tags and text. Comments,
/// processing instructions (`<?xml ?>`), `<!DOCTYPE>` and CDATA sections are read past and left out;
/// namespace prefixes are dropped (`mpd:Period` reads as `Period`).
///
/// Foundation's `XMLParser` is not used: it brings libxml2 along. Input size, nesting depth,
/// element count and attributes per element are bounded, so a hostile manifest fails fast.
enum MiniXML {
    /// One element of the tree.
    struct Element: Sendable {
        /// Local name, namespace prefix removed.
        var name: String
        /// Attributes by local name, entities decoded; `xmlns` declarations left out.
        var attributes: [String: String] = [:]
        /// Child elements in document order.
        var children: [Element] = []
        /// Text directly inside the element (CDATA excluded), entities decoded.
        var text: String = ""
        /// Line of the start tag, from 1.
        var line: Int
        /// The name as written, prefix included, to match the end tag.
        fileprivate var qualifiedName: String

        /// The value of attribute `name`.
        subscript(name: String) -> String? { attributes[name] }
        /// The first child named `name`.
        func child(_ name: String) -> Element? { children.first { $0.name == name } }
        /// The children named `name`.
        func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
    }

    /// Largest document read, in bytes.
    static let maxBytes = 32 << 20
    /// Deepest element nesting read.
    static let maxDepth = 64
    /// Most elements read.
    static let maxElements = 2_000_000
    /// Most attributes on one element.
    static let maxAttributes = 256

    /// Reads `text`, the document fetched from `url` (named in errors), into its root element.
    static func parse(_ text: String, url: String) throws(MediaParseError) -> Element {
        guard text.utf8.count <= maxBytes else {
            throw .xmlLimitExceeded(
                url: url, line: 1,
                limit: "the document is \(text.utf8.count) bytes, more than the \(maxBytes >> 20) MiB limit")
        }
        var reader = Reader(bytes: Array(text.utf8), url: url)
        return try reader.document()
    }
}

/// The cursor over the document's bytes.
private struct Reader {
    let bytes: [UInt8]
    let url: String
    var i = 0
    var line = 1
    var elements = 0

    init(bytes: [UInt8], url: String) {
        self.bytes = bytes
        self.url = url
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    var atEnd: Bool { i >= bytes.count }

    mutating func advance() {
        if bytes[i] == UInt8(ascii: "\n") { line += 1 }
        i += 1
    }

    func at(_ marker: String) -> Bool {
        let m = Array(marker.utf8)
        return i + m.count <= bytes.count && bytes[i..<(i + m.count)].elementsEqual(m)
    }

    /// What the cursor is on, for an error message.
    var found: String {
        if atEnd { return "end of document" }
        let end = min(bytes.count, i + 24)
        let snippet =
            String(decoding: bytes[i..<end], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return "\"" + snippet + "\""
    }

    func malformed(_ expected: String) -> MediaParseError {
        .malformedXML(url: url, line: line, expected: expected, found: found)
    }

    mutating func passSpace() {
        while !atEnd, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { advance() }
    }

    /// Moves past the next `marker`.
    mutating func move(past marker: String) throws(MediaParseError) {
        while !atEnd && !at(marker) { advance() }
        guard !atEnd else { throw malformed("\"\(marker)\"") }
        for _ in marker.utf8 { advance() }
    }

    /// Moves past a comment, processing instruction, CDATA section or declaration at the cursor;
    /// false when the cursor is on none of them.
    mutating func passMarkup() throws(MediaParseError) -> Bool {
        if at("<!--") {
            try move(past: "-->")
            return true
        }
        if at("<![CDATA[") {
            try move(past: "]]>")
            return true
        }
        if at("<?") {
            try move(past: "?>")
            return true
        }
        if at("<!") {
            var brackets = 0
            while !atEnd {
                let b = bytes[i]
                if b == UInt8(ascii: "[") { brackets += 1 }
                if b == UInt8(ascii: "]") { brackets -= 1 }
                advance()
                if b == UInt8(ascii: ">") && brackets <= 0 { return true }
            }
            throw malformed("\">\" to close the declaration")
        }
        return false
    }

    mutating func document() throws(MediaParseError) -> MiniXML.Element {
        passSpace()
        while try passMarkup() { passSpace() }
        guard !atEnd, bytes[i] == UInt8(ascii: "<") else { throw malformed("the root element's start tag \"<\"") }
        var stack: [MiniXML.Element] = []
        var root: MiniXML.Element?
        let (first, closed) = try startTag()
        if closed { root = first } else { stack.append(first) }
        while !stack.isEmpty {
            guard !atEnd else { throw malformed("\"</\(stack[stack.count - 1].qualifiedName)>\"") }
            if bytes[i] != UInt8(ascii: "<") {
                let text = try characterData()
                stack[stack.count - 1].text += text
            } else if try passMarkup() {
                continue
            } else if at("</") {
                let tagLine = line
                advance()
                advance()
                let name = readName()
                passSpace()
                let open = stack[stack.count - 1].qualifiedName
                guard name == open else {
                    throw MediaParseError.malformedXML(
                        url: url, line: tagLine, expected: "\"</\(open)>\"", found: "\"</\(name)>\"")
                }
                guard !atEnd, bytes[i] == UInt8(ascii: ">") else { throw malformed("\">\" to end \"</\(name)\"") }
                advance()
                let done = stack.removeLast()
                if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(done) }
            } else {
                let (element, closed) = try startTag()
                if closed {
                    stack[stack.count - 1].children.append(element)
                } else {
                    guard stack.count < MiniXML.maxDepth else {
                        throw .xmlLimitExceeded(
                            url: url, line: element.line, limit: "elements nest deeper than \(MiniXML.maxDepth) levels")
                    }
                    stack.append(element)
                }
            }
        }
        passSpace()
        while !atEnd {
            guard try passMarkup() else { throw malformed("end of document after the root element") }
            passSpace()
        }
        guard let root else { throw malformed("a root element") }
        return root
    }

    /// A name: bytes up to space, `/`, `>`, `=` or a quote.
    mutating func readName() -> String {
        let start = i
        while !atEnd {
            let b = bytes[i]
            if [
                0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "\""),
                UInt8(ascii: "'"), UInt8(ascii: "<"),
            ].contains(b) {
                break
            }
            advance()
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    /// A start tag at the cursor; `closed` when it is self-closing.
    mutating func startTag() throws(MediaParseError) -> (element: MiniXML.Element, closed: Bool) {
        let tagLine = line
        advance()
        let name = readName()
        guard !name.isEmpty else { throw malformed("an element name after \"<\"") }
        elements += 1
        guard elements <= MiniXML.maxElements else {
            throw .xmlLimitExceeded(url: url, line: tagLine, limit: "more than \(MiniXML.maxElements) elements")
        }
        var element = MiniXML.Element(name: Self.localName(name), line: tagLine, qualifiedName: name)
        var count = 0
        while true {
            passSpace()
            guard !atEnd else { throw malformed("\">\" to end the start tag of <\(name)>") }
            if bytes[i] == UInt8(ascii: ">") {
                advance()
                return (element, false)
            }
            if at("/>") {
                advance()
                advance()
                return (element, true)
            }
            let attribute = readName()
            guard !attribute.isEmpty else { throw malformed("an attribute name, \">\" or \"/>\" in <\(name)>") }
            passSpace()
            guard !atEnd, bytes[i] == UInt8(ascii: "=") else {
                throw malformed("\"=\" after attribute \(attribute) of <\(name)>")
            }
            advance()
            passSpace()
            guard !atEnd, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                throw malformed("a quoted value for attribute \(attribute) of <\(name)>")
            }
            let quote = bytes[i]
            let valueLine = line
            advance()
            let start = i
            while !atEnd, bytes[i] != quote, bytes[i] != UInt8(ascii: "<") { advance() }
            guard !atEnd, bytes[i] == quote else {
                throw MediaParseError.malformedXML(
                    url: url, line: valueLine, expected: "the closing quote of attribute \(attribute) of <\(name)>",
                    found: found)
            }
            let value = try decode(start..<i)
            advance()
            count += 1
            guard count <= MiniXML.maxAttributes else {
                throw .xmlLimitExceeded(
                    url: url, line: line, limit: "<\(name)> has more than \(MiniXML.maxAttributes) attributes")
            }
            if attribute == "xmlns" || attribute.hasPrefix("xmlns:") { continue }
            element.attributes[Self.localName(attribute)] = value
        }
    }

    /// Text up to the next `<`, entities decoded.
    mutating func characterData() throws(MediaParseError) -> String {
        let start = i
        while !atEnd, bytes[i] != UInt8(ascii: "<") { advance() }
        return try decode(start..<i)
    }

    /// The line byte `index` (at or before the cursor) is on.
    func lineOf(_ index: Int) -> Int {
        line - bytes[index..<min(i, bytes.count)].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// The bytes of `range` with entity and character references replaced.
    func decode(_ range: Range<Int>) throws(MediaParseError) -> String {
        guard bytes[range].contains(UInt8(ascii: "&")) else { return String(decoding: bytes[range], as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var j = range.lowerBound
        while j < range.upperBound {
            let b = bytes[j]
            guard b == UInt8(ascii: "&") else {
                out.append(b)
                j += 1
                continue
            }
            var end = j + 1
            while end < range.upperBound, end - j <= 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
            guard end < range.upperBound, bytes[end] == UInt8(ascii: ";") else {
                throw MediaParseError.malformedXML(
                    url: url, line: lineOf(j), expected: "an entity such as &amp; ending in \";\"",
                    found: "\"" + String(decoding: bytes[j..<min(end, range.upperBound)], as: UTF8.self) + "\"")
            }
            let name = String(decoding: bytes[(j + 1)..<end], as: UTF8.self)
            let scalar: Unicode.Scalar?
            switch name {
            case "amp": scalar = "&"
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                } else {
                    scalar = nil
                }
            }
            guard let scalar else {
                throw MediaParseError.malformedXML(
                    url: url, line: lineOf(j), expected: "&amp;, &lt;, &gt;, &quot;, &apos; or a character reference",
                    found: "\"&\(name);\"")
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
            j = end + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
