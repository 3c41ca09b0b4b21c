import ArgumentParser
import PropdEtcd

/// Writes through PropdEtcd against a running etcd, shaped like the shared
/// peers harness (`../shared/bench/peers/harness/bench.py`): `seq` is one
/// connection, one write at a time (latency p50/p99); `conc` is N connections,
/// one write at a time each (writes/s). Values of `--value-size` bytes cycle
/// through `--keys` keys under a fresh prefix. Each write is a put, or with
/// `--shape guarded` the least transaction a propd write is (its compares on
/// the row and on `bindings`, the row's put) by `--route`. Prints one JSON line.
///
/// ```
/// propd-etcd-bench --endpoints http://127.0.0.1:2379 --n-seq 5000 --conns 16
/// propd-etcd-bench --endpoints http://127.0.0.1:2379 --shape guarded --route grpc
/// ```
@main
struct EtcdBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "propd-etcd-bench", abstract: "Measures PropdEtcd's write latency and throughput on a running etcd.")

    @Option(help: "etcd client URLs, comma-separated.")
    var endpoints: String

    @Option(help: "Timed writes of the sequential test.")
    var nSeq = 5000

    @Option(help: "Connections of the concurrent test.")
    var conns = 16

    @Option(help: "Writes of the concurrent test, over all connections.")
    var nConc = 20000

    @Option(help: "Time bound of each test, in seconds.")
    var maxSeconds = 20.0

    @Option(help: "Bytes per value.")
    var valueSize = 100

    @Option(help: "Distinct keys a test cycles through.")
    var keys = 100

    @Option(help: "What each write is: put, or guarded (a propd write's compares and one put, in a transaction).")
    var shape: WriteShape = .put

    @Option(help: "The route of a guarded write's transaction: gateway or grpc.")
    var route: Route = .gateway

    enum WriteShape: String, ExpressibleByArgument { case put, guarded }
    enum Route: String, ExpressibleByArgument { case gateway, grpc }

    private func write(_ etcd: EtcdClient, _ key: [UInt8], _ value: [UInt8]) async throws {
        switch shape {
        case .put:
            try await etcd.put(key, value)
        case .guarded:
            let guards = [
                EtcdCompare(.key(key), .notEqual, .modRevision(1)),
                EtcdCompare(.key(Array("/bench/bindings".utf8)), .equal, .modRevision(0)),
            ]
            let via: EtcdTxnRoute = route == .grpc ? .grpc : .gateway
            _ = try await etcd.txn(guards, success: [.put(key: key, value: value)], via: via)
        }
    }

    func run() async throws {
        let configuration = EtcdClient.Configuration(endpoints: try EtcdEndpoint.list(endpoints))
        let value = [UInt8](repeating: 0x78, count: valueSize)
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let bound = Duration.milliseconds(Int(maxSeconds * 1000))
        let clock = ContinuousClock()

        // seq: one connection, warm-up of 50 writes, then timed one by one.
        let seq = try await withEtcdClient(configuration) { etcd in
            let keyNames = (0..<keys).map { Array("/bench/\(run)/s/\($0)".utf8) }
            for i in 0..<min(50, nSeq) { try await write(etcd, keyNames[i % keys], value) }
            var latencies: [Duration] = []
            latencies.reserveCapacity(nSeq)
            let start = clock.now
            for i in 0..<nSeq {
                let sent = clock.now
                try await write(etcd, keyNames[i % keys], value)
                latencies.append(clock.now - sent)
                if i & 63 == 63, clock.now - start > bound { break }
            }
            let elapsed = clock.now - start
            latencies.sort()
            return (
                p50: latencies[latencies.count / 2], p99: latencies[min(latencies.count - 1, latencies.count * 99 / 100)],
                rate: Double(latencies.count) / elapsed.seconds)
        }

        // conc: `conns` clients (one connection each, warmed up by one put),
        // one write in flight on each; rate = all writes / (last end - first start).
        let perConnection = max(1, nConc / conns)
        let spans = try await withThrowingTaskGroup(of: (ContinuousClock.Instant, ContinuousClock.Instant, Int).self) {
            group in
            for c in 0..<conns {
                group.addTask {
                    try await withEtcdClient(configuration) { etcd in
                        let keyNames = (0..<keys).map { Array("/bench/\(run)/c\(c)/\($0)".utf8) }
                        try await etcd.put(keyNames[0], value)
                        let start = clock.now
                        var n = 0
                        while n < perConnection {
                            try await write(etcd, keyNames[n % keys], value)
                            n += 1
                            if n & 15 == 0, clock.now - start > bound { break }
                        }
                        return (start, clock.now, n)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let concStart = spans.map(\.0).min() ?? clock.now
        let concEnd = spans.map(\.1).max() ?? clock.now
        let concRate = Double(spans.map(\.2).reduce(0, +)) / (concEnd - concStart).seconds

        print(
            #"{"seq_p50_us":\#(seq.p50.microseconds),"seq_p99_us":\#(seq.p99.microseconds),"#
                + #""seq_sets_per_s":\#(Int(seq.rate)),"conc_conns":\#(conns),"conc_sets_per_s":\#(Int(concRate))}"#)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var microseconds: Int { Int(seconds * 1e6) }
}
