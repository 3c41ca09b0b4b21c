// swift-tools-version: 6.1
// Microbenchmarks (package-benchmark). A package of its own so that iterating
// on a benchmark does not release-build the main package's tests, and so the
// main package does not carry the benchmark plugin.
//
//   cd Benchmarks && swift package benchmark
import PackageDescription

let package = Package(
    name: "propd-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named: a path dependency is otherwise identified by its directory name (a worktree is not "propd").
        .package(name: "propd", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PropdStore", package: "propd"),
                .product(name: "PropdCore", package: "propd"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "BindingsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PropdBindings", package: "propd"),
                .product(name: "PropdCore", package: "propd"),
            ],
            path: "Benchmarks/BindingsBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
