import Foundation
import PropdCore
import PropdStore
import Synchronization
import Testing

/// The writer waits out a write lock that another connection holds for a
/// moment (the last connection of a store released in this process holds
/// one while it checkpoints and removes the log) instead of failing its
/// batch at once with "database is locked".
@Suite struct WriterLockWaitTests {
    @Test func aWriteMeetingAHeldLockWaitsAndCommitsOnceTheLockIsLetGo() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let a = key("a")
        try await store.write(WriteRequest(set: [a: 1]))

        let holder = try InspectedDatabase(dir.databasePath)
        try holder.execute("BEGIN IMMEDIATE")
        let asleepBefore = ThreadsAsleep.ids()
        let outcome = Mutex<Result<Revision, StoreError>?>(nil)
        store.submit(
            WriteSubmission({ tx in try WriteRequest(set: [a: 2]).apply(to: &tx) }, rollback: .validatesFirst, origin: .thread)
        { result in
            outcome.withLock { $0 = result.map(\.revision).mapError { $0 as? StoreError ?? .closed } }
        })
        // Either the write is answered (it did not wait) or the writer's
        // thread sleeps in SQLite's busy handler, waiting for the lock.
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        var waited = false
        while outcome.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
            if !ThreadsAsleep.ids().subtracting(asleepBefore).isEmpty {
                waited = true
                break
            }
            await Task.yield()
        }
        // Let go while the writer sleeps between its tries: its next try takes the lock.
        try holder.execute("COMMIT")
        #expect(waited, "answered without waiting for the lock: \(String(describing: outcome.withLock { $0 }))")

        while outcome.withLock({ $0 }) == nil, ContinuousClock.now < deadline { await Task.yield() }
        #expect(outcome.withLock { $0 } == .success(2))
        #expect(try store.get([a]).properties.first??.value == 2)
    }
}

/// Threads of this process asleep in `nanosleep` or `clock_nanosleep`
/// (SQLite's busy handler sleeps so between its tries), read from
/// `/proc/self/task/*/syscall`, each named with its count of voluntary
/// context switches: a thread asleep before and asleep again since (a
/// worker thread another suite's busy handler had, now the writer's)
/// differs from what it was, where its id alone would not.
enum ThreadsAsleep {
    #if arch(x86_64)
    static let sleepCalls: Set<Substring> = ["35", "230"]
    #elseif arch(arm64)
    static let sleepCalls: Set<Substring> = ["101", "115"]
    #endif

    /// Those threads, each as "id:switches".
    static func ids() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.compactMap { task in
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(task)/syscall", encoding: .utf8),
                let call = text.split(separator: " ").first, sleepCalls.contains(call),
                let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8),
                let switches = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") })
            else { return nil }
            return "\(task):\(switches.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")"
        })
    }
}
