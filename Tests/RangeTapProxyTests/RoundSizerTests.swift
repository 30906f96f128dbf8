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

    @Test func anAnnouncedBodyLengthCapsEveryRound() {
        var s = RoundSizer(largest: 512 * 1024)
        #expect(s.capacity(first: 16 * 1024, received: 0) == 512 * 1024, "no length: the read size")
        s.bodyLength = 16 * 1024
        #expect(s.capacity(first: 16 * 1024, received: 0) == 16 * 1024, "a 16 KiB body gets 16 KiB")
        s.bodyLength = 600 * 1024
        #expect(s.capacity(first: 16 * 1024, received: 0) == 512 * 1024)
        #expect(s.capacity(first: 16 * 1024, received: 512 * 1024) == 88 * 1024, "only what is left")
        #expect(s.capacity(first: 1000, received: 600 * 1024 - 10) == 1000, "never less than the callback")
        #expect(s.capacity(first: 100, received: 700 * 1024) == 512 * 1024, "past a wrong length: the usual size")
        s.bodyLength = 0
        #expect(s.capacity(first: 10, received: 0) == 512 * 1024)
    }
}
