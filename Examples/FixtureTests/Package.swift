// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "FixtureTests",
    dependencies: [
        // rangetap checked out beside this package.
        .package(path: "../rangetap")
    ],
    targets: [
        .testTarget(
            name: "FixtureTestsTests",
            dependencies: [.product(name: "RangeTapTesting", package: "rangetap")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
