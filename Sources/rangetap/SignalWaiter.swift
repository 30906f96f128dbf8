import Dispatch
import Foundation
import RangeTapSystem

/// Waits for the first of some signals, which are otherwise ignored while it waits.
enum SignalWaiter {
    static func wait(for signals: [Int32]) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let once = Once(continuation)
            for s in signals {
                System.ignoreSignal(s)
                let source = DispatchSource.makeSignalSource(signal: s, queue: .global())
                source.setEventHandler { once.resume(s) }
                source.resume()
                once.keep(source)
            }
        }
    }

    private final class Once: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Int32, Never>?
        private var sources: [any DispatchSourceSignal] = []
        init(_ c: CheckedContinuation<Int32, Never>) { continuation = c }
        func keep(_ s: any DispatchSourceSignal) { lock.withLock { sources.append(s) } }
        func resume(_ s: Int32) {
            let c: CheckedContinuation<Int32, Never>? = lock.withLock {
                defer { continuation = nil }
                return continuation
            }
            c?.resume(returning: s)
        }
    }
}
