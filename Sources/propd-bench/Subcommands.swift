import ArgumentParser

struct SequentialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sequential", abstract: "Sequential Set round trips.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Measured calls per run.") var calls = 20_000
    @Option(help: "propd's process id, to report its CPU per call (user space and kernel).") var pid: Int32?

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(try Scenarios.sequential(common.socket, calls: calls, pid: pid, runner: common.runner))
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

struct CommandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commands", abstract: "Execute round trips through Swift handlers, and executions/s.",
        discussion: "Each run measures a sequential Set, then Execute, on the same daemon, and reports their ratio.")
    @OptionGroup var common: CommonOptions
    @Option(help: "Measured calls per run (Set and Execute each).") var calls = 5000
    @Option(help: "Connections executing at once (one command each).") var clients = 16
    @Option(help: "Handlers, each serving every command.") var handlers = 4
    @Option(help: "Measured seconds per throughput run.") var seconds = 3.0
    @Option(help: "propd's process id, to report its CPU per operation.") var pid: Int32?

    func run() throws {
        try guarded { () throws(BenchError) in
            common.report(
                try Scenarios.commands(
                    common.socket, calls: calls, clients: clients, handlers: handlers, seconds: seconds, pid: pid,
                    runner: common.runner))
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
            figures += try Scenarios.sequential(socket, calls: 20_000, pid: pid, runner: runner)
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
