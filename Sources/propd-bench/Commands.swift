import ArgumentParser

/// The scenarios as figures, shared by the subcommands and `all`.
enum Scenarios {
    static func sequential(_ socket: String, calls: Int, runner: Runner) throws(BenchError) -> [Figure] {
        let sequential = Sequential(socket: socket, calls: calls)
        var figures = try runner.measure("sequential") { () throws(BenchError) in
            try sequential.run(.set).measurements("sequential Set", targets: [50: .atMost(100)])
        }
        // Where the time goes: the same round trip without the writer (Get)
        // and without the service (GetInfo).
        figures += try runner.measure("sequential get") { () throws(BenchError) in
            try sequential.run(.get).measurements("  sequential Get")
        }
        figures += try runner.measure("sequential getinfo") { () throws(BenchError) in
            try sequential.run(.getInfo).measurements("  sequential GetInfo")
        }
        return figures
    }

    static func throughput(
        _ socket: String, name: String, connections: [Int], depth: Int, seconds: Double, pid: Int32?,
        runner: Runner, target: (Int) -> Target?
    ) throws(BenchError) -> [Figure] {
        var figures: [Figure] = []
        for count in connections {
            figures += try runner.measure("\(name) \(count)") { () throws(BenchError) in
                let result = try Throughput(
                    socket: socket, connections: count, depth: depth, seconds: seconds, pid: pid
                ).run()
                var measurements = [
                    Measurement("\(name), \(count) conn", result.setsPerSecond, "Sets/s", target: target(count))
                ]
                if let cpu = result.daemonMicrosecondsPerSet {
                    measurements.append(Measurement("  propd CPU per Set", cpu, "µs"))
                }
                return measurements
            }
        }
        return figures
    }

    static func pipelined(
        _ socket: String, connections: [Int], depth: Int, seconds: Double, pid: Int32?, runner: Runner
    ) throws(BenchError) -> [Figure] {
        try throughput(
            socket, name: "pipelined Set (depth \(depth))", connections: connections, depth: depth, seconds: seconds,
            pid: pid, runner: runner
        ) { _ in .atLeast(150_000) }
    }

    static func concurrent(
        _ socket: String, connections: [Int], seconds: Double, label: String, pid: Int32?, runner: Runner
    ) throws(BenchError) -> [Figure] {
        try throughput(
            socket, name: "concurrent Set [\(label)]", connections: connections, depth: 1, seconds: seconds,
            pid: pid, runner: runner
        ) { count in
            if label == "full" { return count == 64 ? .atLeast(84_000) : nil }
            return count == 16 ? .atLeast(120_000) : nil
        }
    }

    static func latency(_ socket: String, subscribers: [Int], samples: Int, runner: Runner) throws(BenchError)
        -> [Figure]
    {
        var figures: [Figure] = []
        for count in subscribers {
            let sets = min(5000, max(300, samples / count))
            figures += try runner.measure("latency \(count)") { () throws(BenchError) in
                let result = try SetToEvent(socket: socket, subscribers: count, sets: sets).run()
                var measurements = result.all.measurements(
                    "Set→event, \(count) subs", percentiles: [50, 99, 99.9],
                    targets: count == 100 ? [99: .atMost(250)] : [:])
                if count > 1 { measurements += result.first.measurements("  first of \(count) subs") }
                return measurements
            }
        }
        return figures
    }

    static func fanOut(
        _ socket: String, subscribers: Int, seconds: Double, depth: Int = 128, pid: Int32?, runner: Runner
    ) throws(BenchError) -> [Figure] {
        try runner.measure("fanout") { () throws(BenchError) in
            let result = try FanOut(
                socket: socket, subscribers: subscribers, seconds: seconds, depth: depth, pid: pid
            ).run()
            var measurements = [
                Measurement(
                    "fan-out to \(subscribers) subs", result.eventsPerSecond, "events/s",
                    target: subscribers == 100 ? .atLeast(1_000_000) : nil),
                Measurement("  fan-out writer", result.setsPerSecond, "Sets/s"),
            ]
            if let cpu = result.daemonMicrosecondsPerEvent {
                measurements.append(Measurement("  propd CPU per event", cpu, "µs"))
            }
            return measurements
        }
    }

    static func diamond(_ socket: String, sets: Int, runner: Runner) throws(BenchError) -> [Figure] {
        try runner.measure("diamond") { () throws(BenchError) in
            try Diamond(socket: socket, sets: sets).run()
                .measurements("diamond a→d event", percentiles: [50, 99, 99.9])
        }
    }

    /// Each run opens `count` more idle subscriptions on top of those of the
    /// earlier runs (all stay open), so no run reuses memory an earlier one freed.
    static func memory(_ socket: String, pid: Int32, count: Int, runner: Runner) throws(BenchError) -> [Figure] {
        var held: [RawConnection] = []
        let figures = try runner.measure("memory") { () throws(BenchError) in
            let (kib, links) = try IdleMemory(socket: socket, pid: pid, count: count, first: held.count).run()
            held += links
            return [Measurement("RSS per idle subscription (\(count) per run)", kib, "KiB", target: .atMost(16))]
        }
        withExtendedLifetime(held) {}
        return figures
    }
}

struct SequentialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sequential", abstract: "Sequential Set round trips.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Measured calls per run.") var calls = 20_000

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(try Scenarios.sequential(common.socket, calls: calls, runner: common.runner))
        }
    }
}

struct PipelinedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pipelined", abstract: "Pipelined Set throughput.")
    @OptionGroup var common: CommonOptions
    @Option(parsing: .upToNextOption, help: "Connection counts.") var connections = [1, 16]
    @Option(help: "Calls in flight per connection.") var depth = 16
    @Option(help: "Measured seconds per run.") var seconds = 3.0
    @Option(help: "propd's process id, to report its CPU per Set.") var pid: Int32?

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(
                try Scenarios.pipelined(
                    common.socket, connections: connections, depth: depth, seconds: seconds, pid: pid,
                    runner: common.runner))
        }
    }
}

struct ConcurrentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concurrent", abstract: "Concurrent Sets, one call at a time per connection.",
        discussion: "Durability is the daemon's --durability; pass the same as --label (normal or full).")
    @OptionGroup var common: CommonOptions
    @Option(parsing: .upToNextOption, help: "Connection counts.") var connections = [16, 64]
    @Option(help: "Measured seconds per run.") var seconds = 3.0
    @Option(help: "propd's process id, to report its CPU per Set.") var pid: Int32?

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(
                try Scenarios.concurrent(
                    common.socket, connections: connections, seconds: seconds, label: common.label, pid: pid,
                    runner: common.runner))
        }
    }
}

struct LatencyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "latency", abstract: "Set-to-event latency.")
    @OptionGroup var common: CommonOptions
    @Option(parsing: .upToNextOption, help: "Subscriber counts.") var subscribers = [1, 100, 1000]
    @Option(help: "Samples per run (Sets = samples / subscribers, 300...5000).") var samples = 200_000

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(
                try Scenarios.latency(common.socket, subscribers: subscribers, samples: samples, runner: common.runner))
        }
    }
}

struct FanOutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fanout", abstract: "Events/s to many subscribers.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Subscribers.") var subscribers = 100
    @Option(help: "Measured seconds per run.") var seconds = 3.0
    @Option(help: "propd's process id, to report its CPU per event.") var pid: Int32?
    @Option(help: "Sets the writer keeps in flight.") var depth = 128

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(
                try Scenarios.fanOut(
                    common.socket, subscribers: subscribers, seconds: seconds, depth: depth, pid: pid,
                    runner: common.runner))
        }
    }
}

struct DiamondCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "diamond", abstract: "Set a to event of d.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Measured Sets per run.") var sets = 5000

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(try Scenarios.diamond(common.socket, sets: sets, runner: common.runner))
        }
    }
}

struct MemoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "memory", abstract: "RSS per idle subscription.")
    @OptionGroup var common: CommonOptions
    @Option(help: "propd's process id.") var pid: Int32
    @Option(help: "Idle subscriptions per run, each on its own connection, all kept open (propd allows 1024).")
    var count = 300

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(try Scenarios.memory(common.socket, pid: pid, count: count, runner: common.runner))
        }
    }
}

struct AllCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all", abstract: "Every scenario against one daemon, in one table.")
    @OptionGroup var common: CommonOptions
    @Option(help: "propd's process id (for the memory figure; skipped without it).") var pid: Int32?
    @Option(help: "Measured seconds per throughput run.") var seconds = 3.0

    func run() throws {
        try guarded { () throws(BenchError) in
            let socket = common.socket, runner = common.runner
            // Memory first, on a fresh daemon: later scenarios raise the heap's
            // high-water mark, and new subscriptions would reuse what they freed.
            var figures: [Figure] = []
            if let pid { figures += try Scenarios.memory(socket, pid: pid, count: 300, runner: runner) }
            figures += try Scenarios.sequential(socket, calls: 20_000, runner: runner)
            figures += try Scenarios.pipelined(
                socket, connections: [1, 16], depth: 16, seconds: seconds, pid: pid, runner: runner)
            figures += try Scenarios.concurrent(
                socket, connections: [16, 64], seconds: seconds, label: common.label, pid: pid, runner: runner)
            figures += try Scenarios.latency(socket, subscribers: [1, 100, 1000], samples: 200_000, runner: runner)
            figures += try Scenarios.fanOut(socket, subscribers: 100, seconds: seconds, pid: pid, runner: runner)
            figures += try Scenarios.diamond(socket, sets: 5000, runner: runner)
            common.report(figures)
        }
    }
}
