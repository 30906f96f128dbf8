import Foundation
import RangeTapCore
import Testing

/// `CaptureEvent.decode` tries a fast parser for chunk lines first; whatever it takes must
/// decode exactly as the full JSON decoder would. A leading space keeps the fast path out (JSON
/// allows it, the fast path does not), so the two are compared line by line. Found while
/// fuzzing (issue 10): with a repeated key the fast path kept the last value, the decoder the first.
@Suite("Chunk line fast path agrees with the decoder")
struct ChunkLineFastPathAgreementTests {
    private func both(_ line: String) -> (fast: CaptureEvent?, full: CaptureEvent?) {
        let fast = try? CaptureEvent.decode(jsonLine: Data(line.utf8), lineNumber: 1)
        let full = try? CaptureEvent.decode(jsonLine: Data((" " + line).utf8), lineNumber: 1)
        return (fast ?? nil, full ?? nil)
    }

    @Test(arguments: [
        #"{"type":"chunk","t":60262506,"ex":1,"size":16384,"off":32768,"res":1048576,"at":65532,"off":0,"res":0,"at":0}"#,
        #"{"type":"chunk","t":1,"t":2,"ex":1,"size":3,"off":0}"#,
        #"{"type":"chunk","t":5,"ex":1,"size":3,"off":0,"res":7,"at":9}"#,
    ])
    func repeatedKeysDecodeAsTheFullDecoderDoes(line: String) {
        let (fast, full) = both(line)
        #expect(fast != nil)
        #expect(fast == full)
    }

    @Test func aNumberWithALeadingZeroIsReadAsTheDecoderReadsIt() {
        let (fast, full) = both(#"{"type":"chunk","t":05,"ex":1,"size":3,"off":0}"#)
        #expect(fast == full)
    }
}
