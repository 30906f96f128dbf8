import RangeTapCore
import Testing

@Suite("DurationText")
struct DurationTextTests {
    @Test(arguments: [
        ("500ms", 500), ("2s", 2000), ("1.5s", 1500), ("1m", 60_000), ("0", 0), (" 30S ", 30_000), ("1h", 3_600_000),
    ])
    func durationsAsUsersWriteThem(text: String, ms: Int) throws {
        #expect(try DurationText.milliseconds(text) == ms)
        #expect(
            try DurationText.milliseconds(text, bareNumber: .seconds) == ms,
            "units mean the same when bare numbers are seconds")
    }

    @Test(arguments: ["", "2", "s", "-1s", "2x", "1e3s", "ms", "99999999999s", "nan s"])
    func anythingElseSaysHowToWriteIt(text: String) {
        do {
            _ = try DurationText.milliseconds(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description.contains("write it like 500ms, 2s"))
            #expect(error.description.hasPrefix("\"\(text)\" is not a duration"))
            #expect(error.text == text)
        }
    }

    @Test func aBareNumberIsSecondsOnlyWhereTheFlagSaysSo() throws {
        #expect(try DurationText.milliseconds("10", bareNumber: .seconds) == 10_000)
        #expect(try DurationText.milliseconds("2.5", bareNumber: .seconds) == 2_500)
        #expect(try DurationText.seconds("250ms", bareNumber: .seconds) == 0.25)
        #expect(throws: DurationText.ParseError(text: "-3", bareNumber: .seconds)) {
            try DurationText.milliseconds("-3", bareNumber: .seconds)
        }
        #expect(
            DurationText.ParseError(text: "x", bareNumber: .seconds).description.contains(
                "or a plain number of seconds"))
        #expect(!DurationText.ParseError(text: "x").description.contains("plain number"))
    }
}
