import Dispatch
import Foundation
import RangeTapSystem

/// Becomes set when one of some signals arrives (the signals are otherwise ignored).
final class SignalFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    private var sources: [any DispatchSourceSignal] = []

    init(signals: [Int32]) {
        for s in signals {
            System.ignoreSignal(s)
            let source = DispatchSource.makeSignalSource(signal: s, queue: .global())
            source.setEventHandler { [self] in lock.withLock { set = true } }
            source.resume()
            sources.append(source)
        }
    }

    /// Whether a signal arrived.
    var isSet: Bool { lock.withLock { set } }
}
