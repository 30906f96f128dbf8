import RangeTapCore

import Synchronization

/// The departure schedule of one shaped downlink: shared by all client connections for
/// `scope=link`, one per connection for `scope=connection`.
///
/// The link is a FIFO bottleneck followed by a delay line. Bytes handed to ``departure(bytes:nowNs:)``
/// queue behind the bytes of earlier calls, are carried at the spec's rate (or at the
/// opportunities of its Mahimahi trace) and then delayed by the latency plus a jitter sample.
/// Thread-safe: a `Mutex` is held only for the arithmetic of one call, never across I/O.
///
/// With jitter, successive departures are not ordered (as in `netem`); a caller writing one byte
/// stream in order simply writes each slice no earlier than the one before it.
public final class ShapedLink: Sendable {
    /// Everything the mutex guards.
    private struct State {
        var spec: ShapeSpec
        /// When the link will have carried every byte scheduled so far (before the delay line).
        var busyUntilNs: Int64
        /// The monotonic ns of the trace's time 0.
        var traceBaseNs: Int64
        /// The repetition of the trace holding the next unused opportunity.
        var cycle: Int64 = 0
        /// The next unused opportunity in `cycle`.
        var index = 0
        /// Bytes left in the last, partly used packet.
        var partialRestBytes: Int64 = 0
        /// When that packet's opportunity is.
        var partialNs: Int64 = 0
        var random: SeededGenerator
    }

    private let state: Mutex<State>

    /// A link shaped by `spec`, whose time 0 (the start of its trace) is the monotonic `startNs`;
    /// `seed` seeds the jitter.
    public init(spec: ShapeSpec, startNs: Int64, seed: UInt64) {
        state = Mutex(
            State(spec: spec, busyUntilNs: startNs, traceBaseNs: startNs, random: SeededGenerator(seed: seed)))
    }

    /// The specification in force.
    public var spec: ShapeSpec { state.withLock { $0.spec } }

    /// Changes the shaping from `nowNs` on (a rate drop mid-playback): bytes already scheduled
    /// keep their times, later bytes queue behind them at the new rate. A trace that differs from
    /// the one in force starts at `nowNs` (its time 0); the same trace keeps its position.
    public func update(_ spec: ShapeSpec, nowNs: Int64) {
        state.withLock { state in
            if spec.trace != state.spec.trace {
                state.traceBaseNs = nowNs
                state.cycle = 0
                state.index = 0
                state.partialRestBytes = 0
            }
            state.spec = spec
        }
    }

    /// `bytes` leave rangetap towards the client at monotonic time `nowNs`: the monotonic ns at
    /// which they may be written to the socket.
    ///
    /// That is when the link has carried them (rate or trace) + latency + a jitter sample in
    /// `[-jitter, +jitter]`, never before the link has carried them, so never before
    /// `nowNs + latency - jitter` and never negative. Successive calls share the link's capacity
    /// (a FIFO bottleneck). With a rate, bytes leave when fully serialised:
    /// `free = max(nowNs, linkFree); linkFree = free + bytes * 8e9 / rate`. With a trace, bytes
    /// use delivery opportunities in 1500-byte packets (the rest of a partly used packet goes to
    /// the next call if it comes before that opportunity has passed), and an opportunity that
    /// passes with nothing queued is lost, as in Mahimahi. With neither, only the delay applies.
    public func departure(bytes: Int, nowNs: Int64) -> Int64 {
        state.withLock { state in
            let now = max(nowNs, 0)
            let carried: Int64
            if let trace = state.spec.trace {
                carried = Self.carry(Int64(max(bytes, 0)), nowNs: now, trace: trace, state: &state)
            } else if let rate = state.spec.rateBitsPerSecond, bytes > 0 {
                let free = max(now, state.busyUntilNs)
                let serialisation = (Double(bytes) * 8e9 / Double(rate)).rounded()
                state.busyUntilNs = free.addingSaturating(
                    serialisation < 4e18 ? Int64(serialisation) : 4_000_000_000_000_000_000)
                carried = state.busyUntilNs
            } else {
                carried = max(now, state.busyUntilNs)
            }
            let jitter = state.spec.jitterNs
            let sample = jitter > 0 ? Int64.random(in: -jitter...jitter, using: &state.random) : 0
            return max(carried, carried.addingSaturating(state.spec.latencyNs.addingSaturating(sample)))
        }
    }

    /// About 5 ms of the current rate (at least 1460 and at most 65536 bytes); `Int.max` when the
    /// rate is not limited. A trace counts at its average rate. Callers cut writes into slices of
    /// this size so delivery is smooth.
    public var sliceBytes: Int {
        let spec = self.spec
        guard let bitsPerSecond = spec.trace?.averageBitsPerSecond ?? spec.rateBitsPerSecond.map(Double.init) else {
            return Int.max
        }
        return Int(min(max(bitsPerSecond / 8 * 0.005, 1460), 65536))
    }

    /// Schedules `bytes` (≥ 0) on the opportunities of `trace`; returns when the last of them is
    /// carried.
    private static func carry(_ bytes: Int64, nowNs: Int64, trace: MahimahiTrace, state: inout State) -> Int64 {
        if bytes == 0 { return max(nowNs, state.busyUntilNs) }
        var remaining = bytes
        if state.partialRestBytes > 0 && nowNs <= state.partialNs {
            let used = min(remaining, state.partialRestBytes)
            state.partialRestBytes -= used
            remaining -= used
            if remaining == 0 { return state.partialNs }
        }
        state.partialRestBytes = 0

        let times = trace.opportunitiesMs
        let periodNs = trace.periodMs * 1_000_000
        let base = state.traceBaseNs
        func at(_ cycle: Int64, _ index: Int) -> Int64 {
            base.addingSaturating((cycle * trace.periodMs + times[index]) * 1_000_000)
        }

        // Skip the opportunities that passed with nothing queued.
        let earliest = max(nowNs, state.busyUntilNs)
        if at(state.cycle, state.index) < earliest {
            // The first repetition whose last opportunity (at its end) is not before `earliest`.
            let cycleOfEarliest = max(0, (earliest - base + periodNs - 1) / periodNs - 1)
            if cycleOfEarliest > state.cycle {
                state.cycle = cycleOfEarliest
                state.index = 0
            }
            let offsetNs = earliest - base - state.cycle * periodNs
            let neededMs = (offsetNs + 999_999) / 1_000_000
            var low = state.index
            var high = times.count
            while low < high {
                let mid = (low + high) / 2
                if times[mid] < neededMs { low = mid + 1 } else { high = mid }
            }
            state.index = low
            if state.index == times.count {
                state.cycle += 1
                state.index = 0
            }
        }

        // Use one opportunity per 1500 bytes, whole repetitions at a time.
        let packets = (remaining + MahimahiTrace.packetBytes - 1) / MahimahiTrace.packetBytes
        let count = Int64(times.count)
        let available = count - Int64(state.index)
        let lastIndex: Int
        if packets <= available {
            lastIndex = state.index + Int(packets) - 1
        } else {
            var left = packets - available
            state.cycle += 1
            let wholeCycles = (left - 1) / count
            state.cycle += wholeCycles
            left -= wholeCycles * count
            lastIndex = Int(left) - 1
        }
        let lastNs = at(state.cycle, lastIndex)
        state.index = lastIndex + 1
        if state.index == times.count {
            state.cycle += 1
            state.index = 0
        }
        state.partialRestBytes = packets * MahimahiTrace.packetBytes - remaining
        state.partialNs = lastNs
        state.busyUntilNs = lastNs
        return lastNs
    }
}
