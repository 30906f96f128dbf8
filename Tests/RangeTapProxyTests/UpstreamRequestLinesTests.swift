@testable import RangeTapProxy
import RangeTapCore
import Testing

/// The request's header lines for libcurl are built comparing bytes now; they must be the lines
/// the character-reading version built (kept here as `reference`), on random raw requests:
/// name case, hop-by-hop and `Connection`-listed fields, folds, empty values, `Host`,
/// `Proxy-Authorization`, the three blanked fields, colons followed by marks, Latin-1.
@Suite("Upstream request lines")
struct UpstreamRequestLinesTests {
    @Test func linesAreThoseOfTheCharacterReading() {
        var generator = SeededGenerator(seed: 0x0A57)
        let names = [
            "Host", "host", "Accept", "ACCEPT", "Expect", "Content-Type", "content-type", "Connection", "connection",
            "Keep-Alive", "TE",
            "Upgrade", "Proxy-Authorization", "Range", "User-Agent", "X-Playback-Session-Id", "X-Listed", "x-listed",
            "Bad Name", "",
        ]
        let values = [
            "", " ", " */*", " bytes=0-99", " keep-alive", " X-Listed, close", " x-LISTED", "\t1\t", " é", ":\u{301}x",
            "\u{301}", " a:b",
        ]
        let separators = [":", ":", ":", " :", "\u{301}:", ""]
        for _ in 0..<5_000 {
            var fields: [HeaderLine] = []
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                if Int.random(in: 0..<8, using: &generator) == 0 {
                    fields.append(
                        HeaderLine(
                            raw: [" ", "\t"].randomElement(using: &generator)! + values.randomElement(
                                using: &generator)! + "\r\n"))
                } else {
                    fields.append(
                        HeaderLine(
                            raw: names.randomElement(using: &generator)! + separators.randomElement(using: &generator)!
                                + values.randomElement(using: &generator)! + "\r\n"))
                }
            }
            for authority in ["127.0.0.1:8080", nil] as [String?] {
                #expect(
                    HeaderForwarding.upstreamRequestLines(raw: fields, authority: authority)
                        == Self.reference(fields, authority: authority),
                    Comment(rawValue: String(reflecting: fields.map(\.raw))))
            }
        }
    }

    @Test func connectionTokensAreThoseOfTheCharacterSplit() {
        var generator = SeededGenerator(seed: 0xC0_7E)
        let pieces = ["keep-alive", "Keep-Alive", "close", "X-Listed", ",", ",", " ", "\t", "", "é", "\u{301}", "TE"]
        for _ in 0..<10_000 {
            let values = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                Substring(
                    (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                        .joined())
            }
            var reference = Set<String>()
            for v in values {
                for token in v.split(separator: ",") { reference.insert(token.trimmingHTTPWhitespace().lowercased()) }
            }
            #expect(
                HeaderForwarding.connectionTokens(values) == reference, Comment(rawValue: String(reflecting: values)))
        }
    }

    /// The version that read characters (until 2026-11-25).
    static func reference(_ fields: [HeaderLine], authority: String?) -> [String] {
        // The folds are joined as before (that part is unchanged and shared).
        let parsed = HeaderForwarding.logicalFields(fields).compactMap {
            text -> (name: String, text: String, value: Substring)? in
            guard let name = HeaderLine(raw: text).name, let colon = text.firstIndex(of: ":") else { return nil }
            return (String(name), text, text[text.index(after: colon)...])
        }
        let listed = HeaderForwarding.connectionTokens(
            parsed.filter { $0.name.lowercased() == "connection" }.map { $0.value })
        var out: [String] = []
        var saw: Set<String> = []
        for field in parsed {
            let lower = field.name.lowercased()
            if HeaderForwarding.hopByHop.contains(lower) || listed.contains(lower) || lower == "proxy-authorization" {
                continue
            }
            saw.insert(lower)
            if lower == "host" {
                if let authority { out.append("\(field.name): \(authority)") }
                continue
            }
            out.append(field.value.trimmingHTTPWhitespace().isEmpty ? "\(field.name);" : field.text)
        }
        for name in ["Accept", "Expect", "Content-Type"] where !saw.contains(name.lowercased()) {
            out.append("\(name):")
        }
        return out
    }
}
