import RangeTapCore
import Testing

@Suite("DurationText")
struct DurationTextTests {
    @Test(arguments: [("500ms", 500), ("2s", 2000), ("1.5s", 1500), ("1m", 60_000), ("0", 0), (" 30S ", 30_000), ("1h", 3_600_000)])
    func durationsAsUsersWriteThem(text: String, ms: Int) throws {
        #expect(try DurationText.milliseconds(text) == ms)
    }

    @Test(arguments: ["", "2", "s", "-1s", "2x", "1e3s", "ms", "99999999999s", "nan s"])
    func anythingElseSaysHowToWriteIt(text: String) {
        do {
            _ = try DurationText.milliseconds(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description.contains("write it like 500ms, 2s"))
            #expect(error.text == text)
        }
    }
}
