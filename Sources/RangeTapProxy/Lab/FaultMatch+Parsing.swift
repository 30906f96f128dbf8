import RangeTapCore

extension FaultMatch {
    /// Reads `item` into this match when it is a match key (`host=`, `path=`, `method=`,
    /// `range=`, `nth=`) of `list` (a `--fault` or `--map` rule); false for any other key.
    mutating func read(_ item: KeyValueList.Item, in list: KeyValueList) throws(LabSpecError) -> Bool {
        switch item.key {
        case "host":
            guard Self.isHost(item.value) else {
                throw list.badValue(
                    item,
                    expected:
                        "write a host name or address, with a port if it must match too: cdn.example.com, cdn.example.com:8443, [::1]:8080"
                )
            }
            self.host = item.value
        case "path":
            if let problem = PathGlob.problem(item.value) { throw list.badValue(item, expected: problem) }
            self.path = item.value
        case "method":
            guard Self.isToken(item.value) else {
                throw list.badValue(item, expected: "write a method name such as GET or HEAD")
            }
            self.method = item.value.uppercased()
        case "range":
            switch item.value.lowercased() {
            case "yes": self.range = true
            case "no": self.range = false
            default:
                throw list.badValue(
                    item, expected: "range is yes (requests with a Range header) or no (requests without)")
            }
        case "nth":
            guard item.value.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(item.value), n >= 1,
                n <= 1_000_000_000
            else {
                throw list.badValue(
                    item, expected: "nth is a count from 1: nth=2 applies the rule to the 2nd matching request only"
                )
            }
            self.nth = n
        default:
            return false
        }
        return true
    }

    /// Whether `text` is an HTTP token (a method or a field name).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(HeaderLine.isTokenScalar)
    }

    /// Whether `text` is a host name or address with an optional port (1...65535).
    static func isHost(_ text: String) -> Bool {
        guard URLAuthority(text).userinfo == nil else { return false }
        let parts = splitAuthority(text)
        if let port = parts.port {
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(port), (1...65535).contains(n) else {
                return false
            }
        }
        let allowed: (Unicode.Scalar) -> Bool = { c in
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-" || c == "."
                || c == "_" || c == ":"
        }
        return !parts.name.isEmpty && parts.name.unicodeScalars.allSatisfy(allowed)
    }
}
