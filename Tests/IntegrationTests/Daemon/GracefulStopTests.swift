import Foundation
import PropdClient
import PropdCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM: propd stops accepting, acknowledges what it acknowledges durably,
/// ends subscriptions and exits 0.
@Suite struct GracefulStopTests {
    struct Ack: Sendable {
        var key: String
        var value: Int64
        var revision: Revision
    }

    struct Outcome: Sendable {
        var acks: [Ack]
        var error: PropdClientError?
    }

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    }

    @Test func sigtermDuringABurstOfWritesLosesNoAcknowledgedWrite() async throws {
        let dir = try ScratchDirectory("burst")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        // History keeps every value, so each acknowledged value can be found at its revision.
        let arguments = paths.arguments + ["--history-per-key", "1000000"]
        let daemon = try PropdLaunch.start(arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)

        // A subscriber and an idle connection must not hold up the stop.
        let subscriber = try RawSocket(path: paths.socket)
        #expect(subscriber.call("io.propd.Subscribe", ["patterns": ["idle.**"]], more: true))
        #expect(try await subscriber.receive()?["parameters"]?["event"]?["kind"] == "synced")
        let idle = try RawSocket(path: paths.socket)

        let pid = daemon.pid
        let acknowledged = Counter()
        let signalAfter = 300
        let connections = 4
        let callersPerConnection = 2
        var clients: [PropdClient] = []
        for _ in 0..<connections { clients.append(try await PropdClient.connect(to: paths.socket)) }
        let outcomes = await withTaskGroup(of: Outcome.self) { group in
            for (c, client) in clients.enumerated() {
                for caller in 0..<callersPerConnection {
                    group.addTask {
                        var acks: [Ack] = []
                        // Bounded, so a daemon that never stops cannot hang the test.
                        for i in Int64(1)...50_000 {
                            let key = "burst.c\(c)x\(caller).k\(i % 4)"
                            do throws(PropdClientError) {
                                let revision = try await client.set([key: .integer(i)])
                                acks.append(Ack(key: key, value: i, revision: revision))
                                // SIGTERM mid-burst: from the writers themselves, on an acknowledgement.
                                if acknowledged.increment() == signalAfter { kill(pid, SIGTERM) }
                            } catch {
                                return Outcome(acks: acks, error: error)
                            }
                        }
                        return Outcome(acks: acks, error: nil)
                    }
                }
            }
            var all: [Outcome] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(try await daemon.exit(timeout: .seconds(60)) == .exited(0), "\(daemon.log)")
        for client in clients { await client.close() }
        // Issue 4: on SIGTERM propd checkpoints the WAL, so the database file alone holds everything.
        #expect(fileSize(paths.database + "-wal") ?? 0 == 0, "WAL of \(fileSize(paths.database + "-wal") ?? 0) bytes left")
        #expect(try await subscriber.waitForClose())
        #expect(try await idle.waitForClose())

        let acks = outcomes.flatMap(\.acks)
        #expect(acks.count >= signalAfter)
        // Every writer was stopped by the daemon going away, not by the bound.
        let errors = outcomes.compactMap(\.error)
        #expect(errors.count == connections * callersPerConnection, "\(errors)")
        let unreachable = errors.allSatisfy { $0.isUnreachable }
        #expect(unreachable, "\(errors)")
        // Each revision was acknowledged once.
        #expect(Set(acks.map(\.revision)).count == acks.count)

        // Restart on the same database: every acknowledged write is there.
        let restarted = try PropdLaunch.start(arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: dir.file("2.log"))
        try await restarted.ready(inbox)
        let client = try await PropdClient.connect(to: paths.socket)
        var stored: [String: [Revision: JSONValue]] = [:]
        for key in Set(acks.map(\.key)) {
            let history = try await client.history(key, limit: 1_000_000)
            stored[key] = Dictionary(history.map { ($0.revision, $0.value ?? .null) }) { first, _ in first }
        }
        var lost: [Ack] = []
        for ack in acks where stored[ack.key]?[ack.revision] != .integer(ack.value) { lost.append(ack) }
        #expect(lost.isEmpty, "lost \(lost.count) of \(acks.count) acknowledged writes, e.g. \(lost.prefix(5))")
        let highest = try #require(acks.map(\.revision).max())
        #expect(try await client.stats().revision >= highest)
        await client.close()
        restarted.signal(SIGTERM)
        #expect(try await restarted.exit(timeout: .seconds(30)) == .exited(0))
    }
}
