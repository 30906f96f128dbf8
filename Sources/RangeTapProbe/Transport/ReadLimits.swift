/// How many body bytes a probe request reads before it hangs up, by the kind of answer: a
/// check that gets a 200 where it asked a range must not download the whole file.
struct ReadLimits: Sendable {
    /// Most bytes read from a 206.
    var partial: Int64
    /// Most bytes read from a 200.
    var full: Int64
    /// Most bytes read from anything else (a 416 page, an error page).
    var other: Int64 = 64 * 1024

    /// The limit for a final status.
    func limit(for status: Int) -> Int64 {
        switch status {
        case 206: partial
        case 200: full
        default: other
        }
    }

    /// A range request expecting `count` bytes: a 200 is stopped after its first 16 KiB.
    static func range(_ count: Int64) -> Self { .init(partial: count + 64 * 1024, full: 16 * 1024) }
}
