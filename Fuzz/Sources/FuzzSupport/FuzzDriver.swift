import CFuzzDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs libFuzzer over `test` with the command-line arguments (`-runs=`, corpus directories, …)
/// and exits with its status.
///
/// Each fuzz target is an executable whose `@main` calls this: SwiftPM names an executable
/// target's entry point after the module and links `main` to it, so libFuzzer's own `main`
/// never runs; `LLVMFuzzerRunDriver` is libFuzzer's documented way to start it from a `main`
/// of one's own.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, UInt) -> CInt) -> Never {
    exit(rangetap_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, test))
}
