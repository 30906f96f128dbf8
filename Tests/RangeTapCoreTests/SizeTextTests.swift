import RangeTapCore
import Testing

@Suite("SizeText")
struct SizeTextTests {
    @Test(arguments: [
        ("262144", Int64(262_144)), ("0", 0), ("256k", 262_144), ("256K", 262_144), ("256KiB", 262_144),
        ("256kb", 262_144),
        ("1m", 1 << 20), ("1MiB", 1 << 20), ("1.5m", 1_572_864), ("1g", 1 << 30), ("2t", 2 << 40), (" 64k ", 65_536),
        ("100b", 100),
    ])
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
