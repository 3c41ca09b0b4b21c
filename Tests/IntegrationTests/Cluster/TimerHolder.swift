import Foundation
import PropdEtcd

/// Who fires a cluster's deadlines, read from etcd as an operator would
/// (`etcdctl elect -l PREFIX.timers`): the holder announces `HOST pid PID`.
struct TimerHolder {
    struct TimedOut: Error, CustomStringConvertible {
        var among: Set<Int32>
        var seen: [String]
        var description: String { "no node of \(among.sorted()) came to hold the timer election; seen: \(seen)" }
    }

    private enum Sighting: Sendable {
        case holder(String)
        case timeout
    }

    let etcd: EtcdClient
    let name: [UInt8]

    init(etcd: EtcdClient, prefix: String) {
        self.etcd = etcd
        name = Array((prefix + ".timers").utf8)
    }

    /// The pid of the first holder among `pids` the election announces,
    /// waiting for it (bounded by `timeout`).
    func pid(among pids: Set<Int32>, timeout: Duration = .seconds(60)) async throws -> Int32 {
        let (sightings, continuation) = AsyncStream.makeStream(of: Sighting.self)
        let observer = Task { [etcd, name] in
            try await etcd.observe(name) { leader in
                continuation.yield(.holder(String(decoding: leader.value, as: UTF8.self)))
            }
        }
        // Bounds the wait; the test proceeds on the election's events.
        let timer = Task {
            try await Task.sleep(for: timeout)
            continuation.yield(.timeout)
        }
        defer {
            observer.cancel()
            timer.cancel()
        }
        var seen: [String] = []
        for await sighting in sightings {
            guard case .holder(let holder) = sighting else { break }
            seen.append(holder)
            if let pid = holder.split(separator: " ").last.flatMap({ Int32($0) }), pids.contains(pid) { return pid }
        }
        throw TimedOut(among: pids, seen: seen)
    }
}
