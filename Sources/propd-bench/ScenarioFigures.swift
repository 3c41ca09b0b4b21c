/// The scenarios as figures, shared by the subcommands and `all`.
enum Scenarios {
    static func sequential(_ socket: String, calls: Int, pid: Int32?, runner: Runner) throws(BenchError) -> [Figure] {
        let sequential = Sequential(socket: socket, calls: calls, pid: pid)
        func measurements(_ result: Sequential.Result, _ name: String, targets: [Double: Target] = [:])
            -> [Measurement]
        {
            var measurements = result.latencies.measurements(name, targets: targets)
            if let cpu = result.daemonCPUPerCall {
                measurements.append(Measurement("  propd CPU per call", cpu.total, "µs"))
                measurements.append(Measurement("    of it in the kernel", cpu.system, "µs"))
            }
            return measurements
        }
        var figures = try runner.measure("sequential") { () throws(BenchError) in
            measurements(try sequential.run(.set), "sequential Set", targets: [50: .atMost(100)])
        }
        // Where the time goes: the same round trip without the writer (Get)
        // and without the service (GetInfo).
        figures += try runner.measure("sequential get") { () throws(BenchError) in
            measurements(try sequential.run(.get), "  sequential Get")
        }
        figures += try runner.measure("sequential getinfo") { () throws(BenchError) in
            measurements(try sequential.run(.getInfo), "  sequential GetInfo")
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
