import Foundation
import Glibc
import PropdCore
import PropdService
import Synchronization
import Testing

/// Micro-benchmarks of the hub alone. They print figures and assert nothing
/// about time; they run only with `PROPD_BENCH=1`, ideally in release:
///
///     PROPD_BENCH=1 swift test -c release --filter HubBenchmarks
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["PROPD_BENCH"] == "1"))
struct HubBenchmarks {
    /// Stands in for the store: nothing before the subscription.
    struct EmptyBacklog: BacklogSource {
        func currentRevision() async throws -> Revision { .none }
        func currentProperties(matching patterns: [KeyPattern]) async throws -> (properties: [Property], revision: Revision) {
            ([], .none)
        }
        func history(of key: Key, last count: Int, through revision: Revision) async throws -> [Event] { [] }
        func changes(after since: Revision) async throws -> (changeSets: [ChangeSet], revision: Revision) { ([], .none) }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// A consumer thread serving many subscriptions, like an event loop:
    /// readiness handlers queue the subscription, the loop drains it.
    final class ConsumerLoop: Sendable {
        let ready = Mutex<[Int]>([])
        let signal = DispatchSemaphore(value: 0)
        let stopped = Atomic(false)
        let delivered = Atomic(0)
        let latencies = Mutex<[UInt64]>([])
        let finished = DispatchSemaphore(value: 0)
        let recordLatency: Bool

        init(recordLatency: Bool) { self.recordLatency = recordLatency }

        func wake(_ i: Int) {
            ready.withLock { $0.append(i) }
            signal.signal()
        }

        func run(_ subscriptions: [Int: Subscription], perDelivery: @escaping @Sendable () -> Void) {
            var local: [UInt64] = []
            local.reserveCapacity(1 << 16)
            while !stopped.load(ordering: .relaxed) {
                signal.wait()
                let batch = ready.withLock { queue in
                    defer { queue.removeAll(keepingCapacity: true) }
                    return queue
                }
                for i in batch {
                    guard let subscription = subscriptions[i] else { continue }
                    drainLoop: while true {
                        switch subscription.next(limit: 256) {
                        case .events(let events):
                            var count = 0
                            for event in events {
                                var bytes = 0
                                bytes &+= event.bytes.count
                                if event.event.kind == .set {
                                    count += 1
                                    if recordLatency, case .integer(let sent) = event.event.value {
                                        local.append(HubBenchmarks.now() &- UInt64(sent))
                                    }
                                }
                                _ = bytes
                            }
                            if count > 0 {
                                delivered.add(count, ordering: .relaxed)
                                for _ in 0..<count { perDelivery() }
                            }
                        case .pending, .ended:
                            break drainLoop
                        }
                    }
                }
            }
            let samples = local
            latencies.withLock { $0 += samples }
            finished.signal()
        }
    }

    struct Setup {
        let hub: SubscriptionHub
        let loops: [ConsumerLoop]
        let threads: [Thread]
    }

    /// `subscribers` subscriptions on `bench.*`, served by `loopCount` consumer threads.
    func start(
        subscribers: Int, loopCount: Int = 2, recordLatency: Bool, maximumPending: Int,
        perDelivery: @escaping @Sendable () -> Void = {}
    ) async throws -> Setup {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: maximumPending))
        let loops = (0..<loopCount).map { _ in ConsumerLoop(recordLatency: recordLatency) }
        var perLoop: [[Int: Subscription]] = Array(repeating: [:], count: loopCount)
        let request = try SubscriptionRequest(patterns: [try KeyPattern("bench.*")], initial: false)
        for i in 0..<subscribers {
            let subscription = try await hub.subscribe(request, backlog: EmptyBacklog())
            let loop = loops[i % loopCount]
            subscription.onReady { loop.wake(i) }
            perLoop[i % loopCount][i] = subscription
        }
        var threads: [Thread] = []
        for (l, loop) in loops.enumerated() {
            let subscriptions = perLoop[l]
            let thread = Thread { loop.run(subscriptions, perDelivery: perDelivery) }
            thread.start()
            threads.append(thread)
            // Prime: take the synced marker and arm readiness.
            for i in subscriptions.keys { loop.wake(i) }
        }
        return Setup(hub: hub, loops: loops, threads: threads)
    }

    func stop(_ setup: Setup) {
        for loop in setup.loops {
            loop.stopped.store(true, ordering: .relaxed)
            loop.signal.signal()
        }
        for loop in setup.loops { loop.finished.wait() }
        setup.hub.close()
    }

    static let keys: [Key] = (0..<100).compactMap { try? Key("bench.k\($0)") }

    @Test(arguments: [1, 64])
    func fanOutThroughputTo100Subscribers(batch: Int) async throws {
        let subscribers = 100
        let events = 200_000
        let setup = try await start(subscribers: subscribers, recordLatency: false, maximumPending: 1_000_000)
        let total = subscribers * events
        let start = Self.now()
        var revision: Int64 = 0
        var changeSets: [ChangeSet] = []
        changeSets.reserveCapacity(batch)
        while revision < Int64(events) {
            revision += 1
            let key = Self.keys[Int(revision) % Self.keys.count]
            changeSets.append(ChangeSet(revision: Revision(revision), changes: [.set(key, .integer(revision))]))
            if changeSets.count == batch || revision == Int64(events) {
                setup.hub.publish(changeSets)
                changeSets.removeAll(keepingCapacity: true)
            }
        }
        let published = Self.now()
        while setup.loops.reduce(0, { $0 + $1.delivered.load(ordering: .relaxed) }) < total {
            // Spin politely: this measures the consumers, the publisher is done.
            sched_yield()  // not a sleep: yields the core to the consumers
        }
        let end = Self.now()
        stop(setup)
        let seconds = Double(end - start) / 1e9
        print(
            "BENCH fan-out batch=\(batch): \(events) events x \(subscribers) subscribers = \(total) deliveries in "
                + "\(String(format: "%.3f", seconds)) s -> \(Int(Double(total) / seconds)) deliveries/s; "
                + "publisher alone \(Int(Double(events) / (Double(published - start) / 1e9))) events/s")
    }

    @Test(arguments: [1, 100, 1000])
    func publishToEventLatency(subscribers: Int) async throws {
        let rounds = subscribers >= 1000 ? 2_000 : 10_000
        let arrived = Atomic(0)
        let roundDone = DispatchSemaphore(value: 0)
        let target = subscribers
        let setup = try await start(subscribers: subscribers, recordLatency: true, maximumPending: 1_000_000) {
            if arrived.add(1, ordering: .relaxed).newValue == target {
                arrived.store(0, ordering: .relaxed)
                roundDone.signal()
            }
        }
        for r in 1...rounds {
            let key = Self.keys[r % Self.keys.count]
            let sent = Int64(Self.now())
            setup.hub.publish(ChangeSet(revision: Revision(Int64(r)), changes: [.set(key, .integer(sent))]))
            guard roundDone.wait(timeout: .now() + 10) == .success else {
                Issue.record("round \(r) did not complete")
                break
            }
        }
        stop(setup)
        var samples = setup.loops.flatMap { loop in loop.latencies.withLock { $0 } }
        samples.sort()
        func percentile(_ p: Double) -> Double {
            guard !samples.isEmpty else { return .nan }
            return Double(samples[min(samples.count - 1, Int(Double(samples.count) * p))]) / 1000
        }
        print(
            "BENCH publish->event \(subscribers) subscribers, \(rounds) rounds, \(samples.count) deliveries: "
                + "p50 \(String(format: "%.1f", percentile(0.5))) µs, p99 \(String(format: "%.1f", percentile(0.99))) µs, "
                + "p99.9 \(String(format: "%.1f", percentile(0.999))) µs")
    }

    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test func memoryPerIdleSubscription() async throws {
        let hub = SubscriptionHub()
        let count = 20_000
        var subscriptions: [Subscription] = []
        subscriptions.reserveCapacity(count)
        let before = Self.residentBytes()
        for i in 0..<count {
            let patterns = [try KeyPattern("user\(i).settings.*"), try KeyPattern("room\(i % 50).temp")]
            let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: patterns), backlog: EmptyBacklog())
            _ = subscription.next()  // take synced: idle
            subscriptions.append(subscription)
        }
        let after = Self.residentBytes()
        print(
            "BENCH memory: \(count) idle subscriptions (2 patterns each): RSS \((after - before) / count) B each")
        subscriptions.removeAll()
        #expect(hub.subscriptionCount == 0)
    }
}
