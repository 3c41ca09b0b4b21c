import Benchmark
import PropdBindings
import PropdCore

#if canImport(Glibc)
import Glibc
#endif

// The binding engine's hot paths, against the targets of issue 3:
// >= 2,000,000 simple map evaluations/s; one change through a chain of 10,000
// derived keys in <= 10 ms; 100,000 bindings declared in <= 2 s; <= 2 KiB of
// memory per compiled binding.
//
//   cd Benchmarks && swift package benchmark --target BindingsBenchmarks

private func key(_ text: String) -> Key {
    guard let key = try? Key(text) else { fatalError("bad key \(text)") }
    return key
}

private func engine() -> BindingEngine { BindingEngine(clock: ManualBindingClock()) }

/// The process's resident memory in bytes, from /proc/self/statm (0 where unavailable).
private func residentBytes() -> Int {
    #if canImport(Glibc)
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 255) }
    guard count > 0 else { return 0 }
    let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    // One source change evaluated through one `map` binding, the service's call included.
    Benchmark("Simple map evaluation (propagate one change)",
        configuration: .init(metrics: [.throughput, .wallClock, .mallocCountTotal], scalingFactor: .kilo))
    { benchmark in
        let engine = engine()
        let source = key("room.temp")
        _ = try engine.declare(key: key("room.f"), expression: "room.temp.map { $0 * 9 / 5 + 32 }") { _ in nil }
        var value: Int64 = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            value &+= 1
            blackHole(engine.propagate([.set(source, .integer(value))]) { _ in nil })
        }
    }

    // The same, several changes per call: the per-call overhead shared, as the service batches.
    Benchmark("Simple map evaluation (1,000 bindings per call)",
        configuration: .init(metrics: [.throughput, .wallClock], scalingFactor: .kilo))
    { benchmark in
        let engine = engine()
        for i in 0..<1_000 {
            _ = try engine.declare(key: key("out.\(i)"), expression: "in.\(i).map { $0 * 2 + 1 }") { _ in nil }
        }
        let sources = (0..<1_000).map { key("in.\($0)") }
        var value: Int64 = 0
        benchmark.startMeasurement()
        for _ in 0..<(benchmark.scaledIterations.count / 1_000 + 1) {
            value &+= 1
            let changes = sources.map { Change.set($0, .integer(value)) }
            blackHole(engine.propagate(changes) { _ in nil })
        }
    }

    Benchmark("Chain of 10,000 derived keys (one change)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxIterations: 200))
    { benchmark in
        let engine = engine()
        _ = try engine.declare(key: key("chain.0"), expression: "head.map { $0 + 1 }") { _ in nil }
        for i in 1..<10_000 {
            _ = try engine.declare(key: key("chain.\(i)"), expression: "chain.\(i - 1).map { $0 + 1 }") { _ in nil }
        }
        let head = key("head")
        var value: Int64 = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            value &+= 1
            blackHole(engine.propagate([.set(head, .integer(value))]) { _ in nil })
        }
    }

    Benchmark("Fan-out of one key to 10,000 bindings (one change)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxIterations: 200))
    { benchmark in
        let engine = engine()
        for i in 0..<10_000 {
            _ = try engine.declare(key: key("fan.\(i)"), expression: "hub.map { $0 + \(i) }") { _ in nil }
        }
        let hub = key("hub")
        var value: Int64 = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            value &+= 1
            blackHole(engine.propagate([.set(hub, .integer(value))]) { _ in nil })
        }
    }

    Benchmark("Declare 100,000 bindings",
        configuration: .init(metrics: [.wallClock, .peakMemoryResidentDelta], maxIterations: 5))
    { benchmark in
        let keys = (0..<100_000).map { key("derived.\($0)") }
        let expressions = (0..<100_000).map { "source.\($0 % 1000).map { x in x * 2 + \($0) }" }
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let engine = engine()
            for i in 0..<100_000 {
                blackHole(try engine.declare(key: keys[i], expression: expressions[i]) { _ in nil })
            }
            benchmark.stopMeasurement()
            blackHole(engine)
        }
    }

    Benchmark("Memory per compiled binding",
        configuration: .init(metrics: [.custom("bytes per binding", polarity: .prefersSmaller, useScalingFactor: false)],
            maxIterations: 3))
    { benchmark in
        let count = 100_000
        let keys = (0..<count).map { key("derived.binding.\($0)") }
        let expressions = (0..<count).map { "combineLatest(sensor.\($0 % 100).value, sensor.limit).map { v, l in v > l ? \"high\" : \"ok\" }" }
        for _ in benchmark.scaledIterations {
            let before = residentBytes()
            let engine = engine()
            for i in 0..<count {
                blackHole(try engine.declare(key: keys[i], expression: expressions[i]) { _ in nil })
            }
            let after = residentBytes()
            benchmark.measurement(.custom("bytes per binding", polarity: .prefersSmaller, useScalingFactor: false),
                (after - before) / count)
            blackHole(engine)
        }
    }
}
