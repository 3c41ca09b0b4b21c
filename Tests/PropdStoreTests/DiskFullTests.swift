import Foundation
import PropdCore
import PropdStore
import Testing

/// A full disk fails the writes that hit it with `.diskFull`, leaves every
/// acknowledged write intact, and later writes succeed once space is back.
@Suite struct DiskFullTests {
    static let blob = JSONValue.string(String(repeating: "propd", count: 2000))  // ~10 KB

    /// Concurrent writers fill the store until the storage refuses; returns
    /// every acknowledged (revision, key) and the failures seen.
    static func fill(_ store: PropertyStore, writers: Int = 8) async throws -> (acknowledged: [(Revision, Key)], failures: [StoreError]) {
        try await withThrowingTaskGroup(of: ([(Revision, Key)], [StoreError]).self) { group in
            for w in 0..<writers {
                group.addTask {
                    var acknowledged: [(Revision, Key)] = []
                    var failures: [StoreError] = []
                    var i = 0
                    while failures.count < 3 {
                        let k = key("fill.\(w).\(i)")
                        i += 1
                        do {
                            let changes = try await store.write(WriteRequest(set: [k: Self.blob]))
                            acknowledged.append((changes.revision, k))
                        } catch let error as StoreError {
                            failures.append(error)
                        }
                    }
                    return (acknowledged, failures)
                }
            }
            var all: ([(Revision, Key)], [StoreError]) = ([], [])
            for try await (a, f) in group {
                all.0 += a
                all.1 += f
            }
            return all
        }
    }

    static func verify(_ store: PropertyStore, acknowledged: [(Revision, Key)]) throws {
        let revisions = acknowledged.map(\.0).sorted()
        // Failed batches consumed no revision: the acknowledged ones are exactly 1...N.
        #expect(revisions == (1...revisions.count).map { Revision(Int64($0)) })
        #expect(store.revision == Revision(Int64(revisions.count)))
        let read = try store.get(acknowledged.map(\.1))
        for ((revision, _), property) in zip(acknowledged, read.properties) {
            #expect(property?.revision == revision)
            #expect(property?.value == Self.blob)
        }
        #expect(try store.keyCount() == acknowledged.count)
        #expect(try InspectedDatabase(store.path).strings("PRAGMA integrity_check") == ["ok"])
    }

    @Test(.enabled(if: MountedFilesystem.isAvailable, "needs root to mount a small tmpfs"))
    func onASmallTmpfs() async throws {
        guard let mount = try MountedFilesystem(sizeKiB: 1024) else {
            Issue.record("cannot mount a tmpfs here (not root?): the real disk-full test did not run")
            return
        }
        // A filler file takes space we can give back later.
        let filler = mount.path + "/filler"
        try Data(count: 256 * 1024).write(to: URL(fileURLWithPath: filler))
        let path = mount.path + "/propd.db"
        let store = try PropertyStore(path: path, configuration: StoreConfiguration(durability: .full))
        let (acknowledged, failures) = try await Self.fill(store)
        #expect(!acknowledged.isEmpty)
        for failure in failures {
            guard case .diskFull = failure else {
                Issue.record("expected diskFull, got \(failure)")
                continue
            }
        }
        #expect(store.statistics.failedBatches > 0)
        try Self.verify(store, acknowledged: acknowledged)

        // Space comes back: the same store writes again.
        try FileManager.default.removeItem(atPath: filler)
        let after = try await store.write(WriteRequest(set: [key("after"): 1]))
        #expect(after.revision == Revision(Int64(acknowledged.count + 1)))
        #expect(try store.get([key("after")]).properties.first??.value == 1)
    }

    @Test func atTheConfiguredSizeLimit() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, maximumDatabaseBytes: 512 * 1024)
        let (acknowledged, failures) = try await Self.fill(store)
        #expect(!acknowledged.isEmpty)
        #expect(failures.allSatisfy { if case .diskFull = $0 { true } else { false } }, "\(failures)")
        try Self.verify(store, acknowledged: acknowledged)

        // Deleting frees pages that later writes reuse.
        let some = acknowledged.prefix(10).map(\.1)
        try await store.write(WriteRequest(delete: Array(some)))
        try await store.write(WriteRequest(set: [key("after"): Self.blob]))
        #expect(try store.get([key("after")]).properties.first??.value == Self.blob)
    }
}
