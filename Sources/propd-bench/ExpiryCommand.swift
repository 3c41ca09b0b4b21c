import ArgumentParser

/// `propd-bench expiry`: the figures of keys that expire, each run measuring
/// the Sets with and without `ttl` back to back (A, B, A, B, …) so that the
/// ratio is a same-run one.
struct ExpiryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expiry", abstract: "Keys that expire: heartbeats, expiry lateness, memory per deadline.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Keys refreshed as heartbeats.") var keys = 100_000
    @Option(help: "Connections sending heartbeats.") var connections = 4
    @Option(help: "Heartbeats in flight per connection.") var depth = 16
    @Option(help: "Measured seconds per heartbeat run.") var seconds = 3.0
    @Option(help: "Keys that expire within one second, in the lateness runs.") var expiring = 10_000
    @Option(help: "propd's process id (for memory per deadline; skipped without it).") var pid: Int32?

    func run() throws {
        try guarded { () throws(BenchError) in
            let socket = common.socket, runner = common.runner
            let plain = (0..<keys).map { "bench.hb.plain.k\($0)" }
            let leased = (0..<keys).map { "bench.hb.ttl.k\($0)" }
            try Expiry.prefill(socket, keys: plain, ttl: nil)
            try Expiry.prefill(socket, keys: leased, ttl: 600_000)
            var figures = try runner.measure("heartbeats") { () throws(BenchError) in
                let without = try Expiry.heartbeats(
                    socket, keys: plain, ttl: nil, connections: connections, depth: depth, seconds: seconds)
                let with = try Expiry.heartbeats(
                    socket, keys: leased, ttl: 600_000, connections: connections, depth: depth, seconds: seconds)
                return [
                    Measurement("Sets without ttl (\(keys) keys)", without, "Sets/s"),
                    Measurement("heartbeats with ttl (\(keys) keys)", with, "Sets/s"),
                    Measurement("  with / without", with / without * 100, "%", target: .atLeast(80)),
                ]
            }
            var run = 0
            figures += try runner.measure("lateness") { () throws(BenchError) in
                run += 1
                let latencies = try Expiry.lateness(
                    socket, run: run, groups: 100, perGroup: max(1, expiring / 100), baseTTL: 1500, spread: 10)
                return [
                    Measurement("expiry lateness, \(expiring) in 1 s, p50", latencies.microseconds(atPercentile: 50) / 1000, "ms"),
                    Measurement("expiry lateness, \(expiring) in 1 s, p99", latencies.microseconds(atPercentile: 99) / 1000, "ms",
                        target: .atMost(50)),
                ]
            }
            if let pid {
                figures += try runner.measure("memory") { () throws(BenchError) in
                    run += 1
                    let (without, with) = try Expiry.memory(socket, pid: pid, run: run, count: keys)
                    return [
                        Measurement("RSS per key rewritten without ttl", without, "B"),
                        Measurement("RSS per pending deadline", with, "B", target: .atMost(200)),
                    ]
                }
            }
            common.report(figures)
        }
    }
}
