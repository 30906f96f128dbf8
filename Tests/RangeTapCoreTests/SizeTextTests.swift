import RangeTapCore
import Testing

@Suite("SizeText")
struct SizeTextTests {
    /// Sizes as users write them, with the bytes they mean (typed: a literal of mixed tuples
    /// took the compiler 4 s to infer).
    static let sizes: [(String, Int64)] = [
        ("262144", 262_144), ("0", 0), ("256k", 262_144), ("256K", 262_144), ("256KiB", 262_144), ("256kb", 262_144),
        ("1m", 1 << 20), ("1MiB", 1 << 20), ("1.5m", 1_572_864), ("1g", 1 << 30), ("2t", 2 << 40), (" 64k ", 65_536),
        ("100b", 100),
    ]

    @Test(arguments: Self.sizes)
    func sizesAsUsersWriteThem(text: String, bytes: Int64) throws {
        #expect(try SizeText.bytes(text) == bytes)
    }

    @Test(arguments: [
        "", "k", "-1", "-1k", "1x", "1e3", "1.5", "0x10", "9999999999999999999", "9000000t", "one m", "1 k k", "١٢k",
    ])
    func anythingElseQuotesTheValueAndSaysWhatIsAllowed(text: String) {
        do {
            let bytes = try SizeText.bytes(text)
            Issue.record("\(text) parsed as \(bytes)")
        } catch {
            #expect(error.text == text)
            #expect(error.description.hasPrefix("\"\(text)\" is not a size"))
            #expect(error.description.contains("256k, 1m"))
        }
    }
}
