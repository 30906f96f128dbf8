import ArgumentParser
import Foundation
import RangeTapSystem

/// `--color auto|always|never`: whether terminal output is coloured.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    /// Colour only on a terminal, and only when `NO_COLOR` is unset or empty (no-color.org).
    case auto
    /// Always, even when piped or with `NO_COLOR` (an explicit flag beats the environment).
    case always
    /// Never.
    case never

    /// Whether to colour output written to `descriptor`.
    func enabled(
        descriptor: Int32 = STDOUT_FILENO, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: System.isTerminal(descriptor) && (environment["NO_COLOR"] ?? "").isEmpty
        }
    }
}
