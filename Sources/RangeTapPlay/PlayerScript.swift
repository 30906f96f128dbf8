import RangeTapCore

/// The fetch pattern of a player as a value: given what happened to the last request, it says
/// which request comes next, and it judges every answer. No I/O (``ScriptedPlayer`` sends the
/// requests), so a pattern can be stepped through in a test.
///
/// ```swift
/// var script = PlayerScript(pattern: .avplayer)
/// var request = script.next(after: nil)          // bytes=0-1
/// while let r = request { request = script.next(after: fetch(r)) }
/// ```
public struct PlayerScript: Sendable {
    /// Bytes read from the end by the `tail` request of the AVPlayer pattern.
    public static let tailBytes: Int64 = 64 * 1024
    /// Number of seeks of the `seeky` pattern.
    public static let seekyCount = 5

    /// The pattern played.
    public let pattern: PlayPattern
    /// Bytes to read before hanging up on an open-ended request.
    public let readBytes: Int64
    /// The seed of the pseudo-random positions.
    public let seed: UInt64
    /// Steps so far, one per answered ``next(after:)``.
    public private(set) var steps: [PlayStep] = []
    /// Everything the server did wrong so far.
    public private(set) var problems: [PlayProblem] = []
    /// The resource's total length, once the probe (or a response) told it.
    public private(set) var contentLength: Int64?

    private enum Stage: Sendable {
        case start, probe, open, resume, seek, tail, seekyLoop, linear, done
    }

    private var stage: Stage = .start
    private var pending: PlannedRequest?
    private var rng: SeededGenerator
    private var seeksLeft = PlayerScript.seekyCount

    /// A script at its start. `readBytes` must be positive.
    public init(pattern: PlayPattern, readBytes: Int64 = 256 * 1024, seed: UInt64 = 1) {
        precondition(readBytes > 0, "readBytes must be positive")
        self.pattern = pattern
        self.readBytes = readBytes
        self.seed = seed
        self.rng = SeededGenerator(seed: seed)
    }

    /// Whether the script has nothing more to send.
    public var isFinished: Bool { stage == .done }

    /// Whether some request was answered `200` instead of `206`.
    public var serverIgnoredRange: Bool { problems.contains { $0.kind == .ignoredRange } }

    /// Records what happened to the request returned last (`nil` on the first call) and returns
    /// the next request, or `nil` when the pattern is complete or cannot go on.
    public mutating func next(after outcome: FetchOutcome?) -> PlannedRequest? {
        if let outcome {
            guard let planned = pending else {
                preconditionFailure("next(after:) got an outcome but no request was pending")
            }
            pending = nil
            record(outcome, of: planned)
        } else {
            precondition(
                pending == nil && stage == .start,
                "next(after: nil) starts a script; pass the outcome of the pending request")
        }
        let request = plan()
        pending = request
        if request == nil { stage = .done }
        return request
    }

    // MARK: - Planning

    private mutating func plan() -> PlannedRequest? {
        switch stage {
        case .start:
            if pattern == .linear {
                stage = .linear
                return PlannedRequest(purpose: .linear, first: 0, readLimit: nil)
            }
            stage = .probe
            // A server that ignores Range would send everything: hang up after readBytes.
            return PlannedRequest(purpose: .probe, first: 0, last: 1, readLimit: max(readBytes, 2))
        case .probe:
            guard let length = contentLength else { return nil }
            if pattern == .seeky {
                stage = .seekyLoop
                return nextSeekyRequest(length: length)
            }
            stage = .open
            return PlannedRequest(purpose: .open, first: 0, readLimit: readBytes)
        case .open:
            guard let length = contentLength, let last = steps.last else { return nil }
            let position = resumePosition(after: last)
            if position < length {
                stage = .resume
                return PlannedRequest(purpose: .resume, first: position, readLimit: readBytes)
            }
            return planSeek(length: length)
        case .resume:
            guard let length = contentLength else { return nil }
            return planSeek(length: length)
        case .seek:
            guard let length = contentLength else { return nil }
            stage = .tail
            let first = max(0, length - Self.tailBytes)
            return PlannedRequest(purpose: .tail, first: first, readLimit: max(readBytes, Self.tailBytes))
        case .seekyLoop:
            guard let length = contentLength else { return nil }
            return nextSeekyRequest(length: length)
        case .tail, .linear, .done:
            return nil
        }
    }

    /// Where playback continues: the first byte of the last request plus what it delivered, at
    /// most `readBytes` (so the position does not depend on how libcurl cut the reads).
    private func resumePosition(after step: PlayStep) -> Int64 {
        let first = (try? RangeRequest.parse(step.range))?.specs.first?.knownFirst ?? 0
        return first + min(step.bytes, readBytes)
    }

    /// The AVPlayer seek: to 57–63 % of the length, chosen by the seed.
    private mutating func planSeek(length: Int64) -> PlannedRequest {
        stage = .seek
        let permille = 570 + rng.next(below: 61)
        let position = min(length - 1, Int64((Double(length) * Double(permille) / 1000).rounded(.down)))
        return PlannedRequest(purpose: .seek, first: max(0, position), readLimit: readBytes)
    }

    private mutating func nextSeekyRequest(length: Int64) -> PlannedRequest? {
        guard seeksLeft > 0 else { return nil }
        seeksLeft -= 1
        return PlannedRequest(purpose: .seek, first: rng.next(below: length), readLimit: readBytes)
    }

    // MARK: - Judging answers

    private mutating func record(_ outcome: FetchOutcome, of planned: PlannedRequest) {
        let number = steps.count + 1
        var found: [PlayProblem] = []
        func problem(_ kind: PlayProblem.Kind, _ message: String) {
            found.append(PlayProblem(step: number, kind: kind, message: message))
        }
        var fatal = false
        let asked = planned.rangeHeader

        switch outcome.status {
        case nil:
            problem(.transferFailed, "no response to Range: \(asked): \(outcome.failure ?? "the connection ended")")
            fatal = true
        case 206?:
            switch parseContentRange(outcome.contentRange) {
            case .failure(let message):
                problem(.wrongContentRange, "206 to Range: \(asked) but \(message); a player cannot place these bytes")
                if planned.purpose == .probe { fatal = true }
            case .success(let cr):
                if let range = cr.range, range.first != planned.first {
                    problem(
                        .wrongContentRange,
                        "asked for Range: \(asked) but got Content-Range: \(outcome.contentRange ?? ""), starting at byte \(range.first) instead of \(planned.first)"
                    )
                }
                if let length = cr.completeLength {
                    if contentLength == nil { contentLength = length }
                } else if contentLength == nil {
                    problem(
                        .unknownLength,
                        "Content-Range: \(outcome.contentRange ?? "") gives no total length ('*'); a player cannot plan ranges without it"
                    )
                    if planned.purpose == .probe { fatal = true }
                }
                if outcome.end == .complete, let range = cr.range, outcome.bytesRead != range.count {
                    problem(
                        .wrongBodyLength,
                        "Content-Range: \(outcome.contentRange ?? "") announces \(range.count) bytes but the body had \(outcome.bytesRead)"
                    )
                }
            }
        case 200?:
            if pattern == .linear {
                if contentLength == nil {
                    contentLength = outcome.contentLength ?? (outcome.end == .complete ? outcome.bytesRead : nil)
                }
            } else {
                let whole = outcome.contentLength.map { "the whole file (Content-Length: \($0))" } ?? "the whole file"
                let stopped = outcome.end == .cancelled ? "; rangetap hung up after \(outcome.bytesRead) bytes" : ""
                problem(
                    .ignoredRange,
                    "asked for Range: \(asked), got 200 with \(whole)\(stopped): the server ignored Range; a player would download the whole file"
                )
                if contentLength == nil {
                    contentLength = outcome.contentLength ?? (outcome.end == .complete ? outcome.bytesRead : nil)
                    if contentLength == nil {
                        problem(.unknownLength, "the 200 has no Content-Length; a player cannot learn the length")
                        fatal = true
                    }
                }
            }
        case let status?:
            let hint = status == 416 ? " although the range starts inside the resource" : ""
            problem(.badStatus, "answered \(status) to Range: \(asked)\(hint)")
            if planned.purpose == .probe || planned.purpose == .linear { fatal = true }
        }
        if outcome.end == .failed, outcome.status != nil {
            problem(
                .transferFailed,
                "the transfer of Range: \(asked) failed after \(outcome.bytesRead) body bytes: \(outcome.failure ?? "unknown error")"
            )
            fatal = true
        }

        steps.append(
            PlayStep(
                number: number, purpose: planned.purpose, range: asked, status: outcome.status,
                contentRange: outcome.contentRange, contentLength: outcome.contentLength,
                bytes: outcome.bytesRead, ms: (Double(outcome.durationNs) / 1000).rounded() / 1000,
                end: outcome.end, reusedConnection: outcome.connectionReused,
                problem: found.isEmpty ? nil : found.map(\.message).joined(separator: "; ")))
        problems += found
        if fatal { stage = .done }
    }

    private enum ParsedContentRange {
        case success(ContentRange)
        case failure(String)
    }

    private func parseContentRange(_ value: String?) -> ParsedContentRange {
        guard let value else { return .failure("no Content-Range header") }
        do {
            let cr = try ContentRange.parse(value)
            guard cr.range != nil else { return .failure("Content-Range: \(value) is the unsatisfied form") }
            guard cr.isConsistent else { return .failure("Content-Range: \(value) ends past the total length") }
            return .success(cr)
        } catch {
            return .failure(error.description)
        }
    }
}
