@testable import RangeTapProxy
import Testing

/// The round buffer follows the rounds: full size for a big transfer, small for many slow
/// streams, doubling again when a round outgrows it.
struct RoundSizerTests {
    @Test func startsAtTheReadSizeShrinksToTheRoundsAndGrowsWhenFilled() {
        var s = RoundSizer(largest: 512 * 1024)
        #expect(s.next == 512 * 1024)
        s.roundEnded(size: 512 * 1024, filled: false)
        #expect(s.next == 512 * 1024, "a big transfer keeps the largest buffer")
        s.roundEnded(size: 16 * 1024, filled: false)
        #expect(s.next == 32 * 1024, "twice a 16 KiB round")
        s.roundEnded(size: 100, filled: false)
        #expect(s.next == 16 * 1024, "never below one callback's worth")
        s.roundEnded(size: 16 * 1024, filled: true)
        #expect(s.next == 32 * 1024)
        for _ in 0..<40 { s.roundEnded(size: 0, filled: true) }
        #expect(s.next == 512 * 1024, "never above the read size")
        s.roundEnded(size: 300 * 1024, filled: false)
        #expect(s.next == 512 * 1024)
    }

    @Test func aReadSizeBelowOneCallbackIsHonoured() {
        var s = RoundSizer(largest: 4096)
        s.roundEnded(size: 10, filled: false)
        #expect(s.next == 4096)
    }
}
