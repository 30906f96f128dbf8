import RangeTapCore
import Synchronization

/// The shaping of one recording: the spec in force, changed while recording by
/// `rangetap shape`, and the link every client connection shares (`scope=link`) or the
/// template each makes its own from (`scope=connection`).
final class ShapeControl: Sendable {
    /// The recording's clock: link times are capture times.
    let clock: any CaptureClock
    private let state: Mutex<(spec: ShapeSpec, generation: Int)>
    /// The one link of `scope=link` (its spec kept in step with ``spec``).
    let sharedLink: ShapedLink
    /// `scope` cannot change while recording: connections are already on a link or their own.
    let scope: ShapeSpec.Scope

    init(spec: ShapeSpec, clock: any CaptureClock) {
        self.clock = clock
        state = Mutex((spec, 0))
        scope = spec.scope
        sharedLink = ShapedLink(spec: spec, startNs: clock.now(), seed: UInt64.random(in: 1...UInt64.max))
    }

    /// The spec in force and its generation (bumped by every change).
    var current: (spec: ShapeSpec, generation: Int) { state.withLock { ($0.spec, $0.generation) } }

    /// A new spec from now on. Fails when it would change the scope.
    func update(_ spec: ShapeSpec) throws(LabSpecError) {
        var spec = spec
        if spec.scope != scope {
            throw .conflict(
                "scope=\(spec.scope.rawValue): the scope is \(scope.rawValue) for this recording (it is fixed when record starts)"
            )
        }
        spec.scope = scope
        let now = clock.now()
        state.withLock { s in
            s.spec = spec
            s.generation += 1
        }
        sharedLink.update(spec, nowNs: now)
    }

    /// The link for a new client connection.
    func linkForNewConnection() -> (link: ShapedLink, generation: Int) {
        let (spec, generation) = current
        if scope == .link { return (sharedLink, generation) }
        return (ShapedLink(spec: spec, startNs: clock.now(), seed: UInt64.random(in: 1...UInt64.max)), generation)
    }
}
