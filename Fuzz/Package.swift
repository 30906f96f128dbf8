// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for rangetap's parsers (issue 10). A package of its own so that the main
// package, its tests and CI never see the fuzzer flags or an executable without `main`:
// build it only through `tools/fuzz.sh`, which passes `-sanitize=fuzzer,address` (libFuzzer
// then supplies `main` and calls each target's `LLVMFuzzerTestOneInput`). See docs/fuzzing.md.

/// The settings of the main package: Swift 6 language mode, `any` spelled out.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// One executable per fuzz target, each over RangeTapCore and the shared helpers.
let fuzzTargets = [
    "FuzzRangeRequest",
    "FuzzContentRange",
    "FuzzHeaderLine",
    "FuzzForwardedHead",
    "FuzzMultipart",
    "FuzzCaptureLine",
]

let package = Package(
    name: "rangetap-fuzz",
    platforms: [.macOS(.v15)],
    products: fuzzTargets.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(name: "rangetap", path: "..")
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzDriver"],
            swiftSettings: swiftSettings
        ),
    ]
        + fuzzTargets.map {
            .executableTarget(
                name: $0,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "RangeTapCore", package: "rangetap"),
                ],
                swiftSettings: swiftSettings
            )
        }
)
