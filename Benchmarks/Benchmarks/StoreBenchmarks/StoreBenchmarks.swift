import Benchmark
import Foundation
import PropdCore
import PropdStore

// Store throughput and read latency.
//
//   cd Benchmarks && swift package benchmark --target StoreBenchmarks
//
// Write benchmarks: one iteration = `writesPerIteration` acknowledged writes
// (each one WriteRequest setting one of 1000 keys, as in sqlite_floor.c), so
// writes/s = writesPerIteration / wall-clock median. The average batch size
// reached by group commit is printed to stderr after each write benchmark.

let writesPerIteration = 6_400

func temporaryDatabase(_ name: String) -> String {
    let dir = NSTemporaryDirectory() + "propd-bench-\(name)-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir + "/propd.db"
}

func removeDatabase(_ path: String) {
    try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
}

let benchmarkKeys: [Key] = (0..<1000).compactMap { try? Key("k.\($0)") }

/// `writers` tasks each performing their share of `total` sequential writes.
func concurrentWrites(_ store: PropertyStore, writers: Int, total: Int, offset: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for w in 0..<writers {
            group.addTask {
                var n = offset + w
                for _ in 0..<(total / writers) {
                    try await store.write(WriteRequest(set: [benchmarkKeys[n % 1000]: .integer(Int64(n))]))
                    n += writers
                }
            }
        }
        try await group.waitForAll()
    }
}

func reportBatches(_ name: String, _ store: PropertyStore) {
    let s = store.statistics
    let average = s.batches > 0 ? Double(s.requests) / Double(s.batches) : 0
    FileHandle.standardError.write(Data(
        "\(name): \(s.requests) writes in \(s.batches) transactions, average batch \(String(format: "%.1f", average)), largest \(s.largestBatch)\n".utf8))
}

func writeBenchmarks() {
    for durability in StoreConfiguration.Durability.allCases {
        for writers in [1, 16, 64] {
            let name = "write \(writers) writers (\(durability.rawValue))"
            // FULL fsyncs take milliseconds on this VM: fewer writes per iteration keeps runs short.
            let total = durability == .full && writers == 1 ? 200 : writesPerIteration
            Benchmark(
                name,
                configuration: .init(
                    metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 15)
            ) { benchmark in
                let path = temporaryDatabase("write")
                defer { removeDatabase(path) }
                let store = try PropertyStore(path: path, configuration: StoreConfiguration(durability: durability))
                var offset = 0
                for _ in benchmark.scaledIterations {
                    benchmark.startMeasurement()
                    try await concurrentWrites(store, writers: writers, total: total, offset: offset)
                    benchmark.stopMeasurement()
                    offset += total
                }
                reportBatches("\(name), \(total) writes per iteration", store)
            }
        }
    }
}

/// 100k keys in 100 groups of 1000: `g.<group>.<i>`.
func populatedStore() async throws -> (PropertyStore, String) {
    let path = temporaryDatabase("read")
    let store = try PropertyStore(path: path, configuration: StoreConfiguration(durability: .normal))
    for group in 0..<100 {
        var set: [Key: JSONValue] = [:]
        for i in 0..<1000 {
            set[try Key("g.\(group).\(i)")] = ["temp": .double(20.5), "i": .integer(Int64(i))]
        }
        try await store.write(WriteRequest(set: set))
    }
    return (store, path)
}

func readBenchmarks() {
    Benchmark(
        "get 1 key of 100k", configuration: .init(metrics: [.wallClock], maxDuration: .seconds(5))
    ) { benchmark in
        let (store, path) = try await populatedStore()
        defer { removeDatabase(path) }
        let keys = try (0..<1000).map { try Key("g.\($0 % 100).\($0)") }
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try store.get([keys[i % keys.count]]))
            i += 1
        }
        benchmark.stopMeasurement()
    }
    Benchmark(
        "get 10 keys of 100k", configuration: .init(metrics: [.wallClock], maxDuration: .seconds(5))
    ) { benchmark in
        let (store, path) = try await populatedStore()
        defer { removeDatabase(path) }
        let keys = try (0..<10).map { try Key("g.\($0 * 7).\($0 * 97)") }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try store.get(keys))
        }
        benchmark.stopMeasurement()
    }
    for (pattern, limit) in [("g.42.*", Optional(100)), ("g.42.*", nil), ("*.*.7", Optional(100)), ("**", nil)] {
        Benchmark(
            "list \(pattern) limit \(limit.map(String.init) ?? "none") of 100k",
            configuration: .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 200)
        ) { benchmark in
            let (store, path) = try await populatedStore()
            defer { removeDatabase(path) }
            let keyPattern = try KeyPattern(pattern)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try store.list(pattern: keyPattern, limit: limit))
            }
            benchmark.stopMeasurement()
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    writeBenchmarks()
    readBenchmarks()
}
