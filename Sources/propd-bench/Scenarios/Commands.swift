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
        // Ready once every command answers (a handler registers as its Serve is read).
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
        return handlers
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
    func throughput(_ commands: [String], seconds: Double, warmupSeconds: Double = 0.5) throws(BenchError) -> Double {
        var links: [RawConnection] = []
        for _ in commands { links.append(try RawConnection(path: socket, nonBlocking: true)) }
        var next = [Int](repeating: 0, count: commands.count)
        var poller = Poller(links)
        for index in links.indices { try links[index].send(Calls.execute(commands[index], 0)) }
        let start = now()
        let warmupEnd = start + UInt64(warmupSeconds * 1e9)
        let end = warmupEnd + UInt64(seconds * 1e9)
        var counted = 0
        var errors = 0
        var measuring = false
        var measureStart = warmupEnd
        while true {
            let time = now()
            if !measuring, time >= warmupEnd {
                measuring = true
                measureStart = time
                counted = 0
            }
            if time >= end { break }
            try poller.wait(timeout: 100) { (index: Int) throws(BenchError) in
                let replies = try links[index].receive { frame in if frame.isError { errors += 1 } }
                if replies > 0 {
                    counted += replies
                    next[index] += 1
                    try links[index].send(Calls.execute(commands[index], next[index]))
                }
            }
        }
        let elapsed = Double(now() - measureStart) / 1e9
        if errors > 0 { throw BenchError("\(errors) Executes failed") }
        return Double(counted) / elapsed
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
    /// Execute through a Swift handler against a sequential Set in the same
    /// run (the Set first, then the Execute, in every run), and executions/s
    /// with `clients` connections and `handlers` handlers.
    static func commands(
        _ socket: String, calls: Int, clients: Int, handlers: Int, seconds: Double, runner: Runner
    ) throws(BenchError) -> [Figure] {
        let bench = CommandBench(socket: socket)
        let commands = (0..<clients).map { "bench.cmd.c\($0)" }
        let running = try bench.startHandlers(handlers, commands: ["bench.cmd.seq"] + commands, parallel: 4)
        defer { for handler in running { handler.cancel() } }
        let sequential = Sequential(socket: socket, calls: calls)
        var figures = try runner.measure("execute") { () throws(BenchError) in
            let set = try sequential.run(.set)
            let execute = try bench.roundTrips("bench.cmd.seq", calls: calls)
            let ratio = execute.microseconds(atPercentile: 50) / set.microseconds(atPercentile: 50)
            return set.measurements("sequential Set", percentiles: [50])
                + execute.measurements("Execute via a Swift handler")
                + [Measurement("  Execute p50 / Set p50", ratio, "×", target: .atMost(3))]
        }
        figures += try runner.measure("executions") { () throws(BenchError) in
            let rate = try bench.throughput(commands, seconds: seconds)
            return [Measurement("Executes, \(clients) clients, \(handlers) handlers", rate, "executions/s")]
        }
        return figures
    }
}
