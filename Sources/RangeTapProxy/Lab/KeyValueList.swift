import RangeTapCore

/// The `key=value,key=value` syntax shared by `--shape` and `--fault`: items separated by commas,
/// blanks around items, keys and values ignored, keys case-insensitive.
///
/// Checks what both flags share (a known key, given once, with a non-empty value; only `flags`
/// may stand alone without `=`); the values are checked by the caller, which reports a bad one
/// with ``badValue(_:expected:)``.
struct KeyValueList {
    /// One `key=value` item.
    struct Item {
        /// The key, lowercased.
        let key: String
        /// The value, trimmed; empty for a flag written alone.
        let value: String
        /// The item as written (trimmed), for messages.
        let text: String
    }

    /// The items in the order written.
    let items: [Item]
    /// The kind of text, for messages (`shape`, `fault rule`).
    let what: String
    /// The whole text, trimmed.
    let rule: String

    /// Splits `text` into items, refusing unknown, repeated and empty ones.
    /// - Parameters:
    ///   - what: the kind of text, for messages.
    ///   - keys: the allowed keys, lowercase, in the order messages list them.
    ///   - flags: the keys that are written alone, without `=`.
    init(parsing text: String, what: String, keys: [String], flags: Set<String> = []) throws(LabSpecError) {
        self.what = what
        self.rule = String(text.trimmingLabBlanks())
        let allowed = keys.map { flags.contains($0) ? $0 : $0 + "=" }
        var items: [Item] = []
        var seen: Set<String> = []
        for piece in rule.split(separator: ",", omittingEmptySubsequences: false) {
            let itemText = String(piece.trimmingLabBlanks())
            if itemText.isEmpty { continue }
            let key: String
            let value: String
            if let eq = itemText.firstIndex(of: "=") {
                key = itemText[..<eq].trimmingLabBlanks().lowercased()
                value = String(itemText[itemText.index(after: eq)...].trimmingLabBlanks())
            } else {
                key = itemText.lowercased()
                value = ""
            }
            guard keys.contains(key) else {
                throw .unknownKey(what: what, rule: rule, item: itemText, allowed: allowed)
            }
            if flags.contains(key) {
                guard value.isEmpty, !itemText.contains("=") else {
                    throw .badValue(
                        what: what, rule: rule, item: itemText, expected: "\(key) takes no value: write it alone")
                }
            } else if !itemText.contains("=") {
                throw .missingValue(what: what, rule: rule, item: itemText, allowed: allowed)
            } else if value.isEmpty {
                throw .emptyValue(what: what, rule: rule, item: itemText, allowed: allowed)
            }
            guard seen.insert(key).inserted else {
                throw .repeatedKey(what: what, rule: rule, item: itemText, allowed: allowed)
            }
            items.append(Item(key: key, value: value, text: itemText))
        }
        self.items = items
    }

    /// The error for `item`'s value, saying what it may be.
    func badValue(_ item: Item, expected: String) -> LabSpecError {
        .badValue(what: what, rule: rule, item: item.text, expected: expected)
    }

    /// The error for items that do not go together.
    func badCombination(_ reason: String) -> LabSpecError {
        .badCombination(what: what, rule: rule, reason: reason)
    }

    /// The item with `key`, if given.
    func item(_ key: String) -> Item? { items.first { $0.key == key } }
}
