// swift-tools-version: 6.1
// The floor server of `../Floor/durable_set_server.c`, written in Swift on
// SwiftNIO: what propd's own stack (Swift, NIO's event loop and pipeline)
// costs per Set before any of propd's code runs; and in Swift on epoll(7)
// with no SwiftNIO, which tells what Swift costs apart from NIO. A package
// of its own: it shares nothing with propd but the protocol.
//
//   cd Benchmarks/NIOFloor && swift build -c release
//   .build/release/nio-floor-server /tmp/f/s.sock /tmp/f/db NORMAL
//   .build/release/epoll-floor-server /tmp/f/s.sock /tmp/f/db NORMAL
//   .build/release/nio-floor-server /tmp/f/s.sock /tmp/f/db NORMAL 100   # propd's tables, 100 history rows per key
//   .build/release/nio-floor-server /tmp/f/s.sock /tmp/f/db NORMAL 100 1000   # the same, trimmed every 1,000 Sets
import PackageDescription

let package = Package(
    name: "nio-floor",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2")
    ],
    targets: [
        .systemLibrary(name: "CSQLite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CEpoll"),
        .target(name: "FloorFrames", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "nio-floor-server",
            dependencies: [
                "CSQLite3", "FloorFrames",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "epoll-floor-server",
            dependencies: ["CEpoll", "CSQLite3", "FloorFrames"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
