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
        // The clients: the Swift library with the SecItem shapes, and `security(1)`'s shape on it.
        .library(name: "KeychainClient", targets: ["KeychainClient"]),
        .executable(name: "keychainctl", targets: ["keychainctl"]),
        .library(name: "KeychainCore", targets: ["KeychainCore"]),
        // For the packages in Benchmarks/ and Fuzz/, which build on these libraries.
        .library(name: "KeychainAPI", targets: ["KeychainAPI"]),
        .library(name: "KeychainCrypto", targets: ["KeychainCrypto"]),
        .library(name: "KeychainJSON", targets: ["KeychainJSON"]),
        .library(name: "KeychainSQLite", targets: ["KeychainSQLite"]),
        .library(name: "KeychainX509", targets: ["KeychainX509"]),
        .library(name: "MicroHTTP", targets: ["MicroHTTP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
        // `GET /metrics`: the Prometheus registry and text exposition (docs/audit-and-metrics.md, Metrics).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // KeychainClient's transport: HTTP/1.1 keep-alive and TLS with a custom CA (docs/clients.md#transport).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // MARK: - C modules: thin, a module map and a shim.h each, nothing else.
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        // Linked by KeychainSQLite (below), not by its module map: statically in release builds.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        // OpenSSL's libcrypto: X.509 and key parsing for certificate and key items (docs/certificates-keys-identities.md).
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),

        // MARK: - Small libraries that know nothing of keychains.
        // A lock whose waiters sleep at once, for locks that many threads on one core take often.
        .target(name: "SleepingLock", swiftSettings: strictSettings),
        // JSON values, a parser linear in its input, and a serializer: the wire format.
        .target(name: "KeychainJSON", swiftSettings: strictSettings),
        // Log lines written in batches by a thread of their own, and a swift-log handler on it.
        .target(
            name: "KeychainLog",
            dependencies: ["SleepingLock", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        // The host the server runs on: who may read a file keychaind trusts, the C allocator's
        // freed memory given back, and a line typed without echo.
        .target(name: "KeychainHost", dependencies: ["CLinux"], swiftSettings: strictSettings),

        // MARK: - Crypto, then the barrier above it: all that holds or uses key material.
        // The barrier's primitives: secure memory, AEAD, Argon2id, keyed digests.
        .target(name: "KeychainCrypto", dependencies: ["CSodium"]),
        // The barrier: the one holder of key material, which seals and opens what the store keeps
        // and digests what it indexes; and the stored form of what it seals.
        .target(name: "KeychainBarrier", dependencies: ["KeychainCrypto", "KeychainJSON"], swiftSettings: strictSettings),

        // MARK: - Storage: the store protocol, then the stores, which see only sealed bytes.
        // Untrusted storage: the store protocol and its records (ciphertext, digests, opaque ids).
        .target(name: "KeychainStorage", dependencies: ["CLinux", "SleepingLock"]),
        // The embedded default store: SQLite in WAL mode.
        .target(
            name: "KeychainSQLite", dependencies: ["CSQLite", "KeychainStorage"],
            linkerSettings: [
                .linkedLibrary("sqlite3", .when(configuration: .debug)),
                // Release builds link Debian's libsqlite3.a (libsqlite3-dev), so that SQLite calls
                // itself directly, not through the PLT (docs/performance.md#sqlite-linked-in).
                .unsafeFlags(
                    ["-Xlinker", "-Bstatic", "-Xlinker", "-lsqlite3", "-Xlinker", "-Bdynamic"], .when(configuration: .release)),
            ]),
        // Several replicas' shared store: PostgreSQL through libpq.
        .target(name: "KeychainPostgres", dependencies: ["CPostgres", "CLinux", "KeychainStorage", "SleepingLock"]),

        // MARK: - The core: Keychain Services semantics over the barrier and any store.
        // DER certificates and keys: parsing, the attributes Apple derives from them, X.501 name normalization.
        .target(name: "KeychainX509", dependencies: ["COpenSSL", "KeychainCrypto"], swiftSettings: strictSettings),
        // Keychain Services semantics over any store: typed queries and results, tokens, lock
        // states. (KeychainJSON only to read what older builds sealed as JSON.)
        .target(
            name: "KeychainCore",
            dependencies: [
                "KeychainBarrier", "KeychainCrypto", "KeychainHost", "KeychainStorage", "KeychainJSON", "KeychainX509",
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),

        // MARK: - Transport and the HTTP API above the core; the audit log beside it.
        // HTTP/1.1 transport on libmicrohttpd: framing, limits, keep-alive, suspend/resume.
        .target(
            name: "MicroHTTP",
            dependencies: ["CMicroHTTPD", "CLinux", "SleepingLock", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        // The audit log's records, keyed hashes and hash chain, and its verification.
        .target(
            name: "KeychainAudit",
            dependencies: ["KeychainCrypto", "KeychainJSON", "KeychainLog", "SleepingLock"],
            swiftSettings: strictSettings),
        // The keychaind HTTP API: routes, JSON bodies, the error mapping, the metrics.
        .target(
            name: "KeychainAPI",
            dependencies: [
                "KeychainAudit", "KeychainCore", "KeychainJSON", "KeychainLog", "KeychainStorage", "KeychainX509", "MicroHTTP",
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings),

        // MARK: - The executable: thin, it parses arguments and calls the libraries.
        .executableTarget(
            name: "keychaind",
            dependencies: [
                "KeychainAPI", "KeychainAudit", "KeychainCore", "KeychainHost", "KeychainJSON", "KeychainLog", "KeychainPostgres",
                "KeychainSQLite", "KeychainStorage", "CLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: [
                // jemalloc (Debian libjemalloc-dev) as the process's C allocator, for the Swift
                // runtime, SQLite and libmicrohttpd alike (docs/performance.md#jemalloc).
                .linkedLibrary("jemalloc")
                // The functions a GET runs come first in the release binary through an lld
                // option, which Scripts/build-release.sh gives (docs/performance.md#hot-functions-first).
            ]),

        // MARK: - Clients: no unsafe flags, so that other packages can depend on them.
        // SecItemAdd/CopyMatching/Update/Delete over HTTP, a typed layer, the dictionary wrapper,
        // and a cache of secrets that a lock empties.
        .target(
            name: "KeychainClient",
            dependencies: [
                "KeychainCrypto", "KeychainJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings),
        // `security(1)`'s verbs, flags, output and exit codes, against a keychaind server.
        .executableTarget(
            name: "keychainctl",
            dependencies: [
                "KeychainClient", "KeychainHost", "KeychainJSON", "KeychainX509",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),

        // The README's Swift example, byte for byte (Tests/readme/run.sh checks and runs it).
        .executableTarget(
            name: "KeychainClientExample", dependencies: ["KeychainClient"], path: "Examples/KeychainClientExample"),

        // MARK: - Tests
        // The crashing thread's frames when a test process dies of a signal (Tests/unit/run.sh).
        .target(name: "CrashFrames", path: "Tests/CrashFrames"),
        // What the test targets share: temporary directories, a manual clock, stores and
        // keychains to test against, a PostgreSQL server of their own, a raw-socket HTTP/1.1 client that can send malformed
        // framing, and a log handler that records.
        .target(
            name: "TestSupport",
            dependencies: [
                "CrashFrames", "KeychainAPI", "KeychainCore", "KeychainCrypto", "KeychainJSON", "KeychainStorage",
                "KeychainSQLite",
                "KeychainPostgres", "CPostgres", "MicroHTTP", .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"),
        .testTarget(name: "KeychainCryptoTests", dependencies: ["KeychainCrypto", "CSodium"]),
        .testTarget(name: "KeychainJSONTests", dependencies: ["KeychainJSON"]),
        .testTarget(name: "KeychainHostTests", dependencies: ["KeychainHost", "TestSupport"]),
        .testTarget(name: "KeychainX509Tests", dependencies: ["KeychainX509", "TestSupport"]),
        .testTarget(name: "KeychainStorageTests", dependencies: ["KeychainStorage", "KeychainSQLite", "TestSupport"]),
        .testTarget(
            name: "KeychainCoreTests",
            dependencies: [
                "KeychainBarrier", "KeychainCore", "KeychainStorage", "KeychainCrypto", "KeychainJSON", "KeychainX509",
                "TestSupport",
            ]),
        .testTarget(name: "MicroHTTPTests", dependencies: ["CrashFrames", "MicroHTTP", "TestSupport"]),
        .testTarget(
            name: "KeychainAuditTests", dependencies: ["KeychainAudit", "KeychainCrypto", "KeychainJSON", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "KeychainClientTests",
            dependencies: ["KeychainClient", "KeychainAPI", "KeychainCore", "KeychainCrypto", "TestSupport"]),
        .testTarget(name: "KeychainLogTests", dependencies: ["KeychainLog", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "KeychainAPITests",
            dependencies: [
                "KeychainAPI", "KeychainBarrier", "KeychainCore", "KeychainCrypto", "KeychainJSON", "KeychainX509", "MicroHTTP",
                "TestSupport",
            ],
            exclude: ["Apple/INVENTORY.md"]),
    ]
)
