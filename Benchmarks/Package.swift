// swift-tools-version:6.1
// The in-process core benchmark and the client benchmark, a package of their own over the root
// package's libraries:
// Benchmarks/run.sh (`make bench`) builds it with Scripts/build-release.sh.
import PackageDescription

// SwiftPM names a path dependency after its directory, so the root package is named after the
// checkout, whatever it is called.
let keychaind = String(#filePath.split(separator: "/").dropLast(2).last ?? "keychaind").lowercased()

let package = Package(
    name: "keychaind-benchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "keychaind-core-bench", targets: ["keychaind-core-bench"]),
        .executable(name: "keychain-client-bench", targets: ["keychain-client-bench"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
    ],
    targets: [
        // In-process core throughput (no HTTP).
        .executableTarget(
            name: "keychaind-core-bench",
            dependencies: [
                .product(name: "KeychainAPI", package: keychaind),
                .product(name: "KeychainCore", package: keychaind),
                .product(name: "KeychainCrypto", package: keychaind),
                .product(name: "KeychainJSON", package: keychaind),
                .product(name: "KeychainSQLite", package: keychaind),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "CoreThroughput"),
        // GETs through KeychainClient (Gc), beside wrk's of the same GET (Gw).
        .executableTarget(
            name: "keychain-client-bench",
            dependencies: [.product(name: "KeychainClient", package: keychaind)],
            path: "ClientThroughput"),
    ]
)
