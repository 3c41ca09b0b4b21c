import Dispatch
import Glibc
import PropdClient
import Synchronization

/// Commands (CONTRACT 6.2) through Swift handlers: `PropdClient.serve` tasks
/// in this process that answer each invocation with its argument, driven by
/// raw connections sending `Execute`.
struct CommandBench {
    var socket: String

    /// Starts `count` handlers, each serving every one of `commands`, and
    /// returns once an Execute of each command succeeds.
    func startHandlers(_ count: Int, commands: [String], parallel: Int) throws(BenchError) -> [Task<Void, any Error>] {
        let socket = self.socket
        let handlers = (0..<count).map { _ in
            Task.detached {
                let client = try await PropdClient.connect(to: socket)
                try await client.serve(commands, parallel: parallel) { invocation in invocation.argument }
            }
        }
        try waitUntilServed(commands)
        return handlers
    }

    /// Returns once an Execute of each command succeeds (a handler registers
    /// as its Serve is read, after it connected).
    func waitUntilServed(_ commands: [String]) throws(BenchError) {
        let probe = try RawConnection(path: socket)
        for command in commands {
            var attempts = 0
            while true {
                try probe.send(Calls.execute(command, 0))
                let reply = try probe.receiveFrame()
                if !reply.withUnsafeBytes({ $0.isError }) { break }
                attempts += 1
                if attempts > 5000 { throw BenchError("no handler for \(command): \(String(decoding: reply, as: UTF8.self))") }
                usleep(1000)  // the handlers are connecting; a benchmark's start-up, not a measurement
            }
        }
    }

    /// Execute round trips of one command on one connection.
    func roundTrips(_ command: String, calls: Int, warmup: Int = 500) throws(BenchError) -> Latencies {
        let link = try RawConnection(path: socket)
        for number in 0..<warmup { try link.roundTrip(Calls.execute(command, number)) }
        var latencies = Latencies()
        let frames = (0..<calls).map { Calls.execute(command, warmup + $0) }
        for frame in frames {
            let start = now()
            try link.roundTrip(frame)
            latencies.record(now() - start)
        }
        return latencies
    }

    /// Executions per second with one connection per command, each executing
    /// its own command one call at a time (a command runs once at a time).
    func throughput(_ commands: [String], seconds: Double, pid: Int32?) throws(BenchError) -> Throughput.Result {
        try Throughput(
            socket: socket, connections: commands.count, depth: 1, seconds: seconds, pid: pid,
            call: { connection, number in Calls.execute(commands[connection], number) }
        ).run()
    }
}

extension Calls {
    static func execute(_ command: String, _ argument: Int) -> [UInt8] {
        var out = Array(#"{"method":"io.propd.Execute","parameters":{"command":""#.utf8)
        out.append(contentsOf: command.utf8)
        out.append(contentsOf: #"","argument":"#.utf8)
        out.append(contentsOf: String(argument).utf8)
        out.append(contentsOf: "}}".utf8)
        out.append(0)
        return out
    }
}

extension Scenarios {
    /// Execute through a Swift handler against a sequential Set and the
    /// Set relay (``SetRelay``, the same commits and crossings without a
    /// command) in the same run, and executions/s with `clients` connections
    /// and `handlers` handlers.
    ///
    /// With propd's `pid`, each is also given as propd's CPU (all threads)
    /// per operation, warm-up included, which hardly depends on what else
    /// the machine runs.
    static func commands(
        _ socket: String, calls: Int, clients: Int, handlers: Int, seconds: Double, pid: Int32?, runner: Runner
    ) throws(BenchError) -> [Figure] {
        let bench = CommandBench(socket: socket)
        let commands = (0..<clients).map { "bench.cmd.c\($0)" }
        let running = try bench.startHandlers(handlers, commands: ["bench.cmd.seq"] + commands, parallel: 4)
        defer { for handler in running { handler.cancel() } }
        let raw = try RawCommandHandler(socket: socket, commands: ["bench.cmd.raw"])
        defer { raw.stop() }
        try bench.waitUntilServed(["bench.cmd.raw"])
        let sequential = Sequential(socket: socket, calls: calls)
        let relay = SetRelay(socket: socket)
        var figures = try runner.measure("execute") { () throws(BenchError) in
            var cpu: [(String, Double)] = []
            func metered(_ name: String, units: Int, _ body: () throws(BenchError) -> Latencies) throws(BenchError) -> Latencies {
                var meter = CPUMeter(pid: pid)
                meter.start()
                let latencies = try body()
                if let perUnit = meter.microseconds(per: units) { cpu.append((name, perUnit)) }
                return latencies
            }
            let set = try metered("Set", units: sequential.warmup + calls) { () throws(BenchError) in try sequential.run(.set).latencies }
            let floor = try metered("relay round trip", units: 500 + calls) { () throws(BenchError) in
                try relay.roundTrips(calls: calls, warmup: 500)
            }
            let execute = try metered("Execute via PropdClient.serve", units: 500 + calls) { () throws(BenchError) in
                try bench.roundTrips("bench.cmd.seq", calls: calls, warmup: 500)
            }
            let bare = try metered("Execute via the raw handler", units: 500 + calls) { () throws(BenchError) in
                try bench.roundTrips("bench.cmd.raw", calls: calls, warmup: 500)
            }
            let setP50 = set.microseconds(atPercentile: 50)
            func ratio(_ latencies: Latencies) -> Double { latencies.microseconds(atPercentile: 50) / setP50 }
            return set.measurements("sequential Set", percentiles: [50])
                + floor.measurements("Set relay (two Sets, two watchers)", percentiles: [50])
                + [Measurement("  relay p50 / Set p50", ratio(floor), "×")]
                + execute.measurements("Execute via PropdClient.serve")
                + [Measurement("  Execute p50 / Set p50", ratio(execute), "×", target: .atMost(3))]
                + bare.measurements("Execute via a raw Swift handler")
                + [Measurement("  raw Execute p50 / Set p50", ratio(bare), "×", target: .atMost(3))]
                + [Measurement("  raw Execute p50 / relay p50", bare.microseconds(atPercentile: 50) / floor.microseconds(atPercentile: 50), "×")]
                + cpu.map { Measurement("propd CPU per \($0.0)", $0.1, "µs") }
        }
        figures += try runner.measure("executions") { () throws(BenchError) in
            let rate = try bench.throughput(commands, seconds: seconds, pid: pid)
            return [Measurement("Executes, \(clients) clients, \(handlers) handlers", rate.setsPerSecond, "executions/s")]
                + (rate.daemonMicrosecondsPerSet.map { [Measurement("propd CPU per Execute, \(clients) clients", $0, "µs")] } ?? [])
        }
        return figures
    }
}
