// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "keychaind",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "keychaind", targets: ["keychaind"]),
        .library(name: "KeychainCore", targets: ["KeychainCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Thin C modules: a module map and a shim.h each, nothing else.
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),

        // The barrier's primitives: secure memory, AEAD, Argon2id, keyed digests.
        .target(name: "KeychainCrypto", dependencies: ["CSodium"]),
        // Untrusted storage: the store protocol and its records (ciphertext, digests, opaque ids).
        .target(name: "KeychainStorage"),
        // The embedded default store: SQLite in WAL mode.
        .target(name: "KeychainSQLite", dependencies: ["CSQLite", "KeychainStorage"]),
        // Keychain Services semantics over any store: items, queries, tokens, lock states.
        .target(
            name: "KeychainCore",
            dependencies: [
                "KeychainCrypto", "KeychainStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        // HTTP/1.1 transport on libmicrohttpd: framing, limits, keep-alive, suspend/resume.
        .target(
            name: "MicroHTTP",
            dependencies: ["CMicroHTTPD", "CLinux", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        // The keychaind HTTP API: routes, JSON bodies, the error mapping.
        .target(
            name: "KeychainAPI",
            dependencies: [
                "KeychainCore", "MicroHTTP",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "keychaind",
            dependencies: [
                "KeychainAPI", "KeychainCore", "KeychainSQLite", "KeychainStorage", "CLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),

        // In-process core throughput (no HTTP); `make bench` runs it.
        .executableTarget(
            name: "keychaind-core-bench",
            dependencies: ["KeychainCore", "KeychainCrypto", "KeychainSQLite", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/CoreThroughput"),

        // What the test targets share: temporary directories, a manual clock, stores and
        // keychains to test against, a raw-socket HTTP/1.1 client that can send malformed
        // framing, and a log handler that records.
        .target(
            name: "TestSupport",
            dependencies: [
                "KeychainCore", "KeychainCrypto", "KeychainStorage", "KeychainSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"),
        .testTarget(name: "KeychainCryptoTests", dependencies: ["KeychainCrypto"]),
        .testTarget(name: "KeychainStorageTests", dependencies: ["KeychainStorage", "KeychainSQLite", "TestSupport"]),
        .testTarget(name: "KeychainCoreTests", dependencies: ["KeychainCore", "KeychainStorage", "KeychainCrypto", "TestSupport"]),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP", "TestSupport"]),
        .testTarget(
            name: "KeychainAPITests",
            dependencies: ["KeychainAPI", "KeychainCore", "KeychainCrypto", "MicroHTTP", "TestSupport"]),
    ]
)
