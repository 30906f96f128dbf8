import Foundation
import Testing
@testable import RangeTapCore

/// The chunk fast path decodes exactly what the full decoder does, and steps aside otherwise.
@Suite struct ChunkLineParserTests {
    @Test func agreesWithTheFullDecoderOnWrittenLines() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let chunk = ChunkEvent(
                t: Int64.random(in: 0...Int64(1) << 50, using: &rng),
                exchange: Int.random(in: 1...1_000_000, using: &rng),
                size: Int.random(in: 1...524_288, using: &rng),
                offset: Int64.random(in: 0...Int64(1) << 40, using: &rng),
                resourceOffset: Bool.random(using: &rng) ? Int64.random(in: 0...Int64(1) << 40, using: &rng) : nil,
                bodyOffset: Bool.random(using: &rng) ? Int64.random(in: 0...Int64(1) << 40, using: &rng) : nil)
            let line = Data(CaptureEvent.chunk(chunk).jsonLine().dropLast())
            #expect(ChunkLineParser.parse(line) == chunk)
            #expect(try CaptureEvent.decode(jsonLine: line, lineNumber: 2) == .chunk(chunk))
        }
    }

    @Test func leavesAnythingElseToTheFullDecoder() throws {
        for text in [
            #"{"type":"chunk","ex":1,"t":5,"size":3,"off":0}"#,  // other key order: still fine
            #"{"type":"chunk","t":5,"ex":1,"size":3,"off":0,"extra":1}"#,  // unknown key
            #"{"type":"chunk","t":5.5,"ex":1,"size":3,"off":0}"#,  // not an integer
            #"{"type":"chunk", "t":5,"ex":1,"size":3,"off":0}"#,  // whitespace
            #"{"type":"chunk","t":-5,"ex":1,"size":3,"off":0}"#,  // negative
            #"{"type":"chunk","t":5,"ex":1,"size":3}"#,  // missing off
        ] {
            let line = Data(text.utf8)
            let fast = ChunkLineParser.parse(line)
            let full = try? CaptureEvent.decode(jsonLine: line, lineNumber: 7)
            if let fast { #expect(full == .chunk(fast), "\(text)") }
        }
        #expect(ChunkLineParser.parse(Data(#"{"type":"chunk","t":5,"ex":1,"size":3}"#.utf8)) == nil)
        #expect(ChunkLineParser.parse(Data(#"{"type":"chunk","t":5,"ex":1,"size":3,"off":0,"extra":1}"#.utf8)) == nil)
        #expect(throws: CaptureError.self) {
            try CaptureEvent.decode(jsonLine: Data(#"{"type":"chunk","t":5,"ex":1,"size":3}"#.utf8), lineNumber: 9)
        }
    }
}
