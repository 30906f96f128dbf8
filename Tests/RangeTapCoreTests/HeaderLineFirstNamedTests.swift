import RangeTapCore
import Testing

/// `first(named:)` stops at the first match; it must answer as `values(named:).first` did.
@Suite("HeaderLine first(named:)")
struct HeaderLineFirstNamedTests {
    @Test func answersAsTheFirstOfAllValues() {
        var rng = SeededGenerator(seed: 0xF125)
        let pieces = [
            "Content-Length", "content-length", "CONTENT-LENGTH", "Content-Range", "X", "Content-Length ",
            " Content-Length", "Content‐Length",
        ]
        let values = ["5", "", " 7 ", "bytes 0-1/2", "\t", "a b"]
        for _ in 0..<2_000 {
            var lines = [HeaderLine(raw: "HTTP/1.1 200 OK\r\n")]
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let name = pieces.randomElement(using: &rng)!
                let colon = Int.random(in: 0..<6, using: &rng) == 0 ? "" : ":"
                lines.append(HeaderLine(raw: name + colon + values.randomElement(using: &rng)! + "\r\n"))
            }
            for name in ["Content-Length", "content-range", "x", "Missing"] {
                #expect(
                    lines.first(named: name) == lines.values(named: name).first.map(String.init), "\(lines.map(\.raw))")
            }
        }
    }
}
