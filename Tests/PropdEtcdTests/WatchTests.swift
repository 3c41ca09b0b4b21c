import EtcdTestSupport
import PropdEtcd
import Synchronization
import Testing

extension EtcdClusterTests {
    @Suite struct WatchTests {
        @Test func aWatchFromARevisionDeliversEveryEventInOrder() async throws {
            try await withCluster { _, etcd in
                let start = try await etcd.put("/w/0".bytes, "0".bytes).revision
                var expected: [(String, Int64)] = [("/w/0", start)]
                for i in 1..<20 {  // before the watch exists: history
                    expected.append(("/w/\(i % 5)", try await etcd.put("/w/\(i % 5)".bytes, "\(i)".bytes).revision))
                }
                let deletedAt = try await etcd.delete(.key("/w/1".bytes)).revision
                expected.append(("/w/1", deletedAt))
                let txn = try await etcd.txn(
                    [], success: [.put(key: "/w/x".bytes, value: "a".bytes), .put(key: "/w/y".bytes, value: "b".bytes)])
                expected += [("/w/x", txn.revision), ("/w/y", txn.revision)]
                try await etcd.put("/other".bytes, "outside the range".bytes)

                let watch = WatchRecorder(etcd, .prefix("/w/".bytes), from: start)
                for i in 20..<40 {  // while it runs: live
                    expected.append(("/w/\(i % 5)", try await etcd.put("/w/\(i % 5)".bytes, "\(i)".bytes).revision))
                }
                let events = try await watch.events(expected.count)
                #expect(events.map(\.keyValue.key.string) == expected.map(\.0))
                #expect(events.map(\.keyValue.modRevision) == expected.map(\.1))
                #expect(events.filter { $0.kind == .delete }.map(\.keyValue.modRevision) == [deletedAt])
            }
        }

        /// About 6 MB of events on one watch: messages span many DATA frames,
        /// and the stream's window (1 MiB) and the connection's (64 KiB) are
        /// given back as they are read.
        @Test func eventsLargerThanTheFlowControlWindowsArriveWhole() async throws {
            try await withCluster { _, etcd in
                let value = [UInt8](repeating: 0x62, count: 1_000_000)
                var expected: [Int64] = []
                for i in 0..<3 { expected.append(try await etcd.put("/big/\(i)".bytes, value + [UInt8(i)]).revision) }
                let watch = WatchRecorder(etcd, .prefix("/big/".bytes), from: expected[0])
                for i in 3..<6 { expected.append(try await etcd.put("/big/\(i)".bytes, value + [UInt8(i)]).revision) }
                let events = try await watch.events(6)
                #expect(events.map(\.keyValue.modRevision) == expected)
                #expect(events.map(\.keyValue.value.count) == Array(repeating: 1_000_001, count: 6))
                #expect(events.map(\.keyValue.value.last) == (0..<6).map { UInt8($0) })
            }
        }

        /// A revision the watcher says it has (a node's mirror has its own
        /// transactions from their replies) is passed over, and the watch
        /// goes on with the next one it lacks.
        @Test func revisionsTheWatcherAlreadyHasArePassedOver() async throws {
            try await withCluster { _, etcd in
                let start = try await etcd.put("/elsewhere".bytes, "0".bytes).revision
                let known = Mutex(start)
                let watch = WatchRecorder(etcd, .prefix("/k/".bytes), from: start + 1, knownThrough: { known.withLock { $0 } })
                let a = try await etcd.put("/k/a".bytes, "1".bytes).revision
                // Delivered: the watch is at etcd's newest revision, one message per revision.
                #expect(try await watch.events(1).map(\.keyValue.modRevision) == [a])
                known.withLock { $0 = a + 1 }
                let b = try await etcd.put("/k/b".bytes, "2".bytes).revision
                try #require(b == a + 1, "nothing else writes to this cluster")
                let c = try await etcd.put("/k/c".bytes, "3".bytes).revision
                let after = try await watch.events(1)
                #expect(after.map(\.keyValue.key.string) == ["/k/c"])
                #expect(after.map(\.keyValue.modRevision) == [c])
            }
        }

        /// A cancelled watch ends with `CancellationError`, not a move to
        /// another member, and the client's transactions and watches on the
        /// same connection go on.
        @Test func aCancelledWatchEndsAndTheClientGoesOn() async throws {
            try await withCluster { _, etcd in
                var last = try await etcd.put("/c/seed".bytes, "0".bytes).revision
                for i in 0..<20 {
                    let watch = WatchRecorder(etcd, .prefix("/c/".bytes), from: last + 1)
                    let written = try await etcd.txnFuture([], success: [.put(key: "/c/\(i)".bytes, value: "\(i)".bytes)]).get()
                    #expect(try await watch.events(1).map(\.keyValue.modRevision) == [written.revision])
                    watch.cancel()
                    let ended = try await watch.failure()
                    #expect(ended is CancellationError, "the watch ended with \(String(describing: ended))")
                    last = written.revision
                }
                // The connection still carries transactions and watches.
                let watch = WatchRecorder(etcd, .prefix("/c/".bytes), from: last + 1)
                let after = try await etcd.txnFuture([], success: [.put(key: "/c/after".bytes, value: "x".bytes)]).get()
                #expect(try await watch.events(1).map(\.keyValue.value.string) == ["x"])
                #expect(after.revision == last + 1)
            }
        }

        @Test func aWatchGoesOnWithNothingSkippedWhenItsMemberIsKilled() async throws {
            try await withCluster { cluster, etcd in
                let start = try await etcd.put("/k/seed".bytes, "0".bytes).revision
                var expected: [Int64] = [start]
                let watch = WatchRecorder(etcd, .prefix("/k/".bytes), from: start)
                for i in 0..<10 {
                    expected.append(try await etcd.put("/k/\(i)".bytes, "\(i)".bytes).revision)
                }
                #expect(try await watch.events(expected.count).map(\.keyValue.modRevision) == expected)

                // The client serves everything from member 0 until it fails.
                cluster.kill(0)
                for i in 10..<30 {
                    expected.append(try await putRetryingUnknown(etcd, "/k/\(i)", "\(i)"))
                }
                let resumed = try await watch.events(30 - 10)
                #expect(resumed.map(\.keyValue.modRevision) == Array(expected.suffix(20)))
                #expect(resumed.map(\.keyValue.key.string) == (10..<30).map { "/k/\($0)" })
            }
        }

        /// SIGSTOP, not a kill: the member keeps its connections open and
        /// answers nothing, so only the watch's own progress requests can
        /// tell it is gone.
        @Test func aWatchLeavesAMemberThatStopsAnswering() async throws {
            try await withCluster { cluster, etcd in
                let start = try await etcd.put("/h/seed".bytes, "0".bytes).revision
                let watch = WatchRecorder(etcd, .prefix("/h/".bytes), from: start)
                #expect(try await watch.events(1).map(\.keyValue.modRevision) == [start])
                // The writer prefers member 1; the watch is on member 0.
                let urls = cluster.clientURLs
                let writer = EtcdClient.Configuration(endpoints: try [urls[1], urls[2], urls[0]].map { try EtcdEndpoint($0) })
                try await withEtcdClient(writer) { other in
                    cluster.freeze(0)
                    // Thawed before the clients end: a client's connection
                    // to a frozen member waits for it to close.
                    defer { cluster.thaw(0) }
                    var written: [Int64] = []
                    for i in 0..<5 { written.append(try await putRetryingUnknown(other, "/h/\(i)", "\(i)")) }
                    let resumed = try await watch.events(5, timeout: .seconds(90))
                    #expect(resumed.map(\.keyValue.modRevision) == written)
                    #expect(resumed.map(\.keyValue.key.string) == (0..<5).map { "/h/\($0)" })
                }
            }
        }

        @Test func anIdleWatchLearnsTheRevisionFromProgressNotifications() async throws {
            try await withCluster(etcdArguments: ["--experimental-watch-progress-notify-interval=300ms"]) { _, etcd in
                let start = try await etcd.put("/p/a".bytes, "1".bytes).revision
                let (updates, sink) = AsyncStream.makeStream(of: EtcdWatchUpdate.self)
                let watch = Task { try await etcd.watch(.prefix("/p/".bytes), from: start, progressNotify: true) { sink.yield($0) } }
                defer { watch.cancel() }
                // Writes elsewhere move the store's revision past the watched range's.
                let outside = try await etcd.put("/elsewhere".bytes, "x".bytes).revision
                let progressed = try await withDeadline(.seconds(30), waitingFor: "a progress notification at \(outside)") {
                    var seen: [EtcdWatchUpdate] = []
                    for await update in updates {
                        seen.append(update)
                        if case .progress(let revision) = update, revision >= outside { break }
                    }
                    return seen
                }
                guard case .events(let events) = progressed.first else {
                    Issue.record("the watch began with \(String(describing: progressed.first))")
                    return
                }
                #expect(events.map(\.keyValue.modRevision) == [start])
                #expect(progressed.dropFirst().allSatisfy { if case .progress = $0 { true } else { false } })
            }
        }

        @Test func aWatchBelowTheCompactedRevisionReportsTheCompactRevision() async throws {
            try await withCluster { _, etcd in
                let first = try await etcd.put("/cw/a".bytes, "1".bytes).revision
                try await etcd.put("/cw/a".bytes, "2".bytes)
                let compactedTo = try await etcd.put("/cw/a".bytes, "3".bytes).revision
                try await etcd.compact(upTo: compactedTo)

                let watch = WatchRecorder(etcd, .prefix("/cw/".bytes), from: first)
                let failure = try await watch.failure()
                let error = try #require(failure as? EtcdError, "the watch ended with \(String(describing: failure))")
                #expect(error.code == .compacted)
                #expect(error.compactRevision == compactedTo)

                // From the compact revision on, the watch is served.
                let fresh = WatchRecorder(etcd, .prefix("/cw/".bytes), from: compactedTo)
                #expect(try await fresh.events(1).map(\.keyValue.value.string) == ["3"])
            }
        }
    }
}

/// A put that retries only when its outcome is unknown and the key does not
/// hold its value yet: for tests that kill members under writes.
func putRetryingUnknown(_ etcd: EtcdClient, _ key: String, _ value: String) async throws -> Int64 {
    for _ in 0..<5 {
        do {
            return try await etcd.put(key.bytes, value.bytes).revision
        } catch let error as EtcdError where error.code == .outcomeUnknown || error.code == .unavailable {
            if let kv = try await etcd.range(.key(key.bytes)).keyValues.first, kv.value == value.bytes {
                return kv.modRevision
            }
        }
    }
    return try await etcd.put(key.bytes, value.bytes).revision
}
