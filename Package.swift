// swift-tools-version: 6.0
import PackageDescription

/// One set of settings for every Swift target: Swift 6 language mode (strict concurrency).
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// The release executable on Linux is linked as a position-dependent executable that exports no
/// symbols. A PIE build relocates about 120,000 pointers at every start (2.8 MiB of `.rela.dyn` read,
/// the pages they land in copied), and `-export-dynamic` (the driver's default) makes the dynamic
/// linker read a 0.8 MiB symbol table; together about 3.5 MiB of the idle process's 41 MiB resident
/// set. Measured in docs/performance.md ("Memory of the binary").
let releaseLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(
        ["-Xlinker", "-no-pie", "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))
]

/// rangetap builds and runs on Linux only: every call into the operating system is in
/// `RangeTapSystem`, whose one platform file is `System+Linux.swift` (docs/ARCHITECTURE.md).
let package = Package(
    name: "rangetap",
    products: [
        .executable(name: "rangetap", targets: ["rangetap"]),
        .library(name: "RangeTapCore", targets: ["RangeTapCore"]),
        .library(name: "RangeTapCurl", targets: ["RangeTapCurl"]),
        .library(name: "RangeTapMedia", targets: ["RangeTapMedia"]),
        .library(name: "RangeTapProxy", targets: ["RangeTapProxy"]),
        .library(name: "RangeTapTLS", targets: ["RangeTapTLS"]),
        .library(name: "RangeTapReport", targets: ["RangeTapReport"]),
        .library(name: "RangeTapPlay", targets: ["RangeTapPlay"]),
        .library(name: "RangeTapProbe", targets: ["RangeTapProbe"]),
        .library(name: "RangeTapReplay", targets: ["RangeTapReplay"]),
        .library(name: "RangeTapTesting", targets: ["RangeTapTesting"]),
        .library(name: "RangeTapWeb", targets: ["RangeTapWeb"]),
    ],
    dependencies: [
        // Pinned to its minor version: RangeTapProxy imports its `@_spi(CustomByteBufferAllocator)`,
        // which carries no promise across minor releases.
        .package(url: "https://github.com/apple/swift-nio.git", .upToNextMinor(from: "2.101.2")),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
    ],
    targets: [
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .target(name: "CMalloc"),
        // SHA-256, EC P-256 keys and X.509 certificates from the system's libcrypto (OpenSSL 3,
        // Debian's libssl-dev).
        .target(
            name: "CLibcrypto",
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        // TLS from the system's libssl (the same OpenSSL 3): contexts and sessions that read and
        // write memory the caller lends (RangeTapTLS's TLSHandler).
        .target(
            name: "CLibssl",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        // Every call into the operating system: one file per platform.
        .target(name: "RangeTapSystem", swiftSettings: swiftSettings),
        .target(
            name: "RangeTapCore",
            dependencies: [
                "CLibcrypto",
                "RangeTapSystem",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapMedia",
            dependencies: ["RangeTapCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapCurl",
            dependencies: ["CCurl", "RangeTapSystem"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapTLS",
            dependencies: [
                "CLibcrypto",
                "CLibssl",
                "RangeTapSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapProxy",
            dependencies: [
                "RangeTapReplay",
                "CMalloc",
                "RangeTapCore",
                "RangeTapCurl",
                "RangeTapSystem",
                "RangeTapTLS",
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapReport",
            dependencies: ["RangeTapCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapReplay",
            dependencies: [
                "RangeTapCore",
                "RangeTapSystem",
                "RangeTapTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The live web view: a capture served as a page that updates itself (docs/web.md).
        .target(
            name: "RangeTapWeb",
            dependencies: [
                "RangeTapCore",
                "RangeTapMedia",
                "RangeTapReport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapPlay",
            dependencies: ["RangeTapCore", "RangeTapCurl"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapProbe",
            dependencies: [
                "RangeTapCore",
                "RangeTapCurl",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "rangetap",
            dependencies: [
                "RangeTapCore",
                "RangeTapMedia",
                "RangeTapProxy",
                "RangeTapReport",
                "RangeTapPlay",
                "RangeTapReplay",
                "RangeTapProbe",
                "RangeTapSystem",
                "RangeTapTLS",
                "RangeTapWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: releaseLinkerSettings
        ),
        .target(
            name: "RangeTapTesting",
            dependencies: [
                "RangeTapCore",
                "RangeTapProxy",
                "RangeTapReplay",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RangeTapTestSupport",
            dependencies: [
                "RangeTapCore",
                "RangeTapProxy",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Tests/RangeTapTestSupport",
            swiftSettings: swiftSettings
        ),
        // The fast tier: pure logic, parsers, state machines and `EmbeddedChannel` pipelines; no
        // subprocess, no listening socket. `tools/test.sh --fast` runs these targets in parallel.
        .testTarget(
            name: "RangeTapCoreTests",
            dependencies: ["RangeTapCore", "RangeTapTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RangeTapReportTests",
            dependencies: ["RangeTapCore", "RangeTapMedia", "RangeTapReport", "RangeTapTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RangeTapMediaTests",
            dependencies: ["RangeTapCore", "RangeTapMedia", "RangeTapTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "rangetapTests",
            dependencies: ["rangetap"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RangeTapPlayTests",
            dependencies: ["RangeTapCore", "RangeTapPlay", "RangeTapTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RangeTapProbeTests",
            dependencies: ["RangeTapCore", "RangeTapProbe", "RangeTapTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RangeTapProxyTests",
            dependencies: [
                "CMalloc",
                "RangeTapCore",
                "RangeTapProxy",
                "RangeTapTLS",
                "RangeTapCurl",
                "RangeTapTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The integration tier: real peers (curl, nginx, ffmpeg, Chromium, Python origins) on
        // 127.0.0.1, the built `rangetap` executable, real sockets. `tools/run-suites.py` runs each
        // suite in its own process, several at a time.
        .testTarget(
            name: "RangeTapIntegrationTests",
            dependencies: [
                "RangeTapCore",
                "RangeTapCurl",
                "RangeTapMedia",
                "RangeTapPlay",
                "RangeTapProbe",
                "RangeTapProxy",
                "RangeTapReplay",
                "RangeTapReport",
                "RangeTapTesting",
                "RangeTapTLS",
                "RangeTapTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
