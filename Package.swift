// swift-tools-version: 6.1
import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "propd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PropdCore", targets: ["PropdCore"]),
        .library(name: "PropdBindings", targets: ["PropdBindings"]),
        .library(name: "PropdStore", targets: ["PropdStore"]),
        .library(name: "PropdClient", targets: ["PropdClient"]),
        .executable(name: "propd", targets: ["propd"]),
        .executable(name: "propctl", targets: ["propctl"]),
        .executable(name: "propd-bench", targets: ["propd-bench"]),
    ],
    dependencies: [
        // Only for the SQLite amalgamation it vendors and compiles (see Sources/CSQLite).
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Heap, for the epoll loops' timers.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // propd.conf: YAML, because every node carries its line and column, so
        // unknown keys and bad values are reported at FILE:LINE:COLUMN.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // etcd's v3 API over gRPC (the cluster store): code generated once from
        // etcd's .proto files by scripts/generate-etcd-protos.
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        // Transactions as gRPC calls on the store's writer's event loop.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // The JSON value type and its byte-level codec: shared by the values
        // (PropdCore) and the wire messages (PropdVarlink), which must not
        // depend on each other.
        .target(name: "PropdJSON", swiftSettings: strictSwift6),
        // Values, keys, patterns, revisions, events. No I/O.
        .target(name: "PropdCore", dependencies: ["PropdJSON"], swiftSettings: strictSwift6),
        // io.propd's vocabulary: method names, reply shapes and error names with
        // their parameters, written once for the daemon, the client, propctl
        // and the subscription hub's event encoder. No I/O.
        .target(name: "PropdWire", dependencies: ["PropdCore"], swiftSettings: strictSwift6),
        // The binding language and the glitch-free dataflow graph. Pure.
        .target(name: "PropdBindings", dependencies: ["PropdCore"], swiftSettings: strictSwift6),
        // SQLite: migrations from schema/, properties, history, bindings, group commit.
        .target(
            name: "PropdStore",
            dependencies: ["PropdCore", "CSQLite"],
            swiftSettings: strictSwift6
        ),
        // SQLite's C API under its usual names, reached only through PropdStore's
        // SQLite/ wrapper, and the writer's VFS (WALCoalescingVFS.c). The library
        // is sqlite-nio's VaporCSQLite target, which is no product of its own:
        // the SQLiteNIO product brings it and its header.
        .target(name: "CSQLite", dependencies: [.product(name: "SQLiteNIO", package: "sqlite-nio")]),
        // The single writer: requests -> bindings -> one revision each -> events.
        .target(
            name: "PropdService",
            dependencies: [
                "PropdCore", "PropdBindings", "PropdStore", "PropdWire",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        // epoll(7), eventfd(2), accept4(2).
        .systemLibrary(name: "CEpoll"),
        // SwiftNIO's event loop and stream channel on epoll, below NIO's selector.
        .target(
            name: "PropdEpoll",
            dependencies: [
                "CEpoll",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strictSwift6
        ),
        // The wire: NUL framing and org.varlink.service. Nothing propd-specific.
        .target(
            name: "PropdVarlink",
            dependencies: [
                "PropdJSON", "PropdEpoll",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        // glibc's mallopt, for the daemon's allocator tuning.
        .target(name: "CMallocTuning"),
        // io.propd handlers, access checks and the listener.
        .target(
            name: "PropdServer",
            dependencies: [
                "PropdCore", "PropdService", "PropdVarlink", "PropdWire", "CMallocTuning", "PropdCluster", "PropdEtcd",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSwift6
        ),
        // Async client: Varlink + Core only (propctl never links SQLite or the engine).
        .target(
            name: "PropdClient",
            dependencies: [
                "PropdCore", "PropdVarlink", "PropdWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "propd",
            dependencies: [
                "PropdServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift6
        ),
        // propctl's commands, one file per verb; the executable only runs them.
        .target(
            name: "PropctlCommands",
            dependencies: [
                "PropdClient", "PropdCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "propctl",
            dependencies: ["PropctlCommands"],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "propd-bench",
            dependencies: [
                "PropdClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strictSwift6
        ),

        // A child process for the store's crash test: writes in a loop and
        // reports each acknowledged revision on stdout until it is killed.
        .executableTarget(
            name: "propd-store-crasher",
            dependencies: ["PropdStore"],
            path: "Tests/Support/propd-store-crasher",
            swiftSettings: strictSwift6
        ),

        // A real propd process, a systemd-style notify socket and a
        // collector of events, for the integration, propctl and cluster
        // tests alike.
        .target(
            name: "PropdTestSupport",
            dependencies: ["PropdCore"],
            path: "Tests/Support/PropdTestSupport",
            swiftSettings: strictSwift6
        ),

        // A hand-run event loop for the store's and the service's in-process
        // tests of where writes commit.
        .target(
            name: "PropdStoreTestSupport",
            dependencies: ["PropdStore"],
            path: "Tests/Support/PropdStoreTestSupport",
            swiftSettings: strictSwift6
        ),

        .testTarget(
            name: "PropdCoreTests",
            dependencies: ["PropdCore", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdWireTests",
            dependencies: ["PropdWire", "PropdCore", "PropdClient", "PropdVarlink"],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdStoreTests",
            dependencies: [
                "PropdStore", "PropdCore", "PropdTestSupport", "PropdStoreTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdBindingsTests",
            dependencies: [
                "PropdBindings", "PropdCore", "PropdTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdVarlinkTests",
            dependencies: [
                "PropdVarlink", "PropdEpoll", "PropdTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdServiceTests",
            dependencies: [
                "PropdService", "PropdStore", "PropdBindings", "PropdCore", "PropdWire", "PropdTestSupport",
                "PropdStoreTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdServerTests",
            dependencies: [
                "PropdServer", "PropdService", "PropdStore", "PropdVarlink", "PropdCore", "PropdTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        // Runs the real propctl against a real propd.
        .testTarget(
            name: "PropctlTests",
            // EtcdTestSupport: `propctl stats` of a cluster node.
            dependencies: ["PropdCore", "PropdTestSupport", "EtcdTestSupport"],
            swiftSettings: strictSwift6
        ),
        // etcd: the generated v3 API (messages and gRPC clients), nothing else.
        .target(
            name: "EtcdAPI",
            dependencies: [
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // An etcd client over several endpoints: KV, txn, watch, leases,
        // elections, typed errors. Knows etcd, nothing of propd's domain.
        .target(
            name: "PropdEtcd",
            dependencies: [
                "EtcdAPI",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            swiftSettings: strictSwift6
        ),
        // The cluster store: the property space in etcd behind PropdStore's
        // seam (PropertyStorage), with a mirror fed by one watch.
        .target(
            name: "PropdCluster",
            dependencies: [
                "PropdCore", "PropdStore", "PropdEtcd",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6
        ),
        // PropdEtcd's latency and throughput against a real etcd.
        .executableTarget(
            name: "propd-etcd-bench",
            dependencies: [
                "PropdEtcd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift6
        ),
        // A real three-member etcd cluster on loopback ports, stopped by PID.
        .target(
            name: "EtcdTestSupport",
            // ProcessLaunch and ChildExit: etcd members are spawned and waited for as propd is.
            dependencies: ["PropdTestSupport"],
            path: "Tests/Support/EtcdTestSupport",
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdEtcdTests",
            dependencies: [
                "PropdEtcd", "EtcdAPI", "EtcdTestSupport", .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // swift-nio-http2's server: the independent peer of HTTP2ClientSession's tests.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PropdClusterTests",
            dependencies: [
                "PropdCluster", "PropdStore", "PropdCore", "PropdEtcd", "EtcdTestSupport", "PropdTestSupport",
                // Services on the cluster store: deadlines fired by two nodes at once.
                "PropdService", .product(name: "Logging", package: "swift-log"),
                // The command relay between two such services.
                "PropdServer",
            ],
            swiftSettings: strictSwift6
        ),

        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "PropdClient", "PropdCore", "PropdVarlink", "PropdTestSupport", "EtcdTestSupport",
                // The cluster tests read etcd (the timer election) as an operator would.
                "PropdEtcd",
            ],
            swiftSettings: strictSwift6
        ),
    ]
)
