import ArgumentParser

/// Drives a running propd over its socket and prints figures against the
/// targets of issue 6 (medians of `--runs` runs, with the load average of each).
///
/// ```
/// propd-bench all --socket /tmp/p/s.sock --pid $(pidof propd) --runs 3
/// propd-bench concurrent --socket /tmp/p/s.sock --connections 64 --label full
/// ```
@main
struct PropdBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "propd-bench",
        abstract: "Benchmarks a running propd over its Unix socket.",
        subcommands: [
            SequentialCommand.self, PipelinedCommand.self, ConcurrentCommand.self, LatencyCommand.self,
            FanOutCommand.self, DiamondCommand.self, MemoryCommand.self, CommandsCommand.self, AllCommand.self,
            ExpiryCommand.self,
        ])
}

/// Options every scenario takes.
struct CommonOptions: ParsableArguments {
    @Option(help: "The socket of the running propd.")
    var socket: String

    @Option(help: "Runs per figure; the median is reported.")
    var runs = 3

    @Option(help: "A label for the daemon's setup (e.g. its --durability), printed with the figures.")
    var label = "normal"

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Do not print each run on stderr.")
    var quiet = false

    var runner: Runner { Runner(runs: max(1, runs), quiet: quiet) }

    func report(_ figures: [Figure]) {
        Report.print(figures, json: json, context: ["socket": socket, "daemon": label, "runs": String(runs)])
    }
}

/// Turns the benchmark's errors into a clean exit.
func guarded(_ body: () throws(BenchError) -> Void) throws {
    do {
        try body()
    } catch {
        throw ValidationError("propd-bench: \(error)")
    }
}
