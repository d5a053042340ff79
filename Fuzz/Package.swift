// swift-tools-version:6.1
// The fuzzing harnesses, a package of its own over the root package's libraries (Fuzz/README.md):
// `swift test --package-path Fuzz` replays the corpus; Tests/fuzz/run.sh builds the libFuzzer
// driver with -sanitize=fuzzer.
import PackageDescription

// SwiftPM names a path dependency after its directory, so the root package is named after the
// checkout, whatever it is called.
let keychaind = String(#filePath.split(separator: "/").dropLast(2).last ?? "keychaind").lowercased()

let package = Package(
    name: "keychaind-fuzz",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "keychaind-fuzz", targets: ["keychaind-fuzz"])
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
    ],
    targets: [
        // The parsers that read untrusted bytes, one function each.
        .target(
            name: "FuzzTargets",
            dependencies: [
                .product(name: "KeychainAPI", package: keychaind),
                .product(name: "KeychainCore", package: keychaind),
                .product(name: "KeychainJSON", package: keychaind),
                .product(name: "KeychainX509", package: keychaind),
                .product(name: "MicroHTTP", package: keychaind),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
            ],
            path: "Targets",
            swiftSettings: [
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]),
        // The libFuzzer driver with -sanitize=fuzzer -D FUZZING; without them, a replayer of corpus files.
        .executableTarget(name: "keychaind-fuzz", dependencies: ["FuzzTargets"], path: "Driver"),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzTargets"], path: "Tests"),
    ]
)
