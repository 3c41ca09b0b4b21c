import Foundation
import Logging
import PropdCore
import PropdService
import PropdStore
import PropdTestSupport
import Testing

/// History compaction among derived values: the same random Sets, Deletes,
/// Binds and Unbinds go to two services, one on a store keeping 2 changes
/// per key (a pass every 16 rows, which meets revisions of several rows:
/// a source and the values derived from it) and closed and opened again at
/// random points, the other on a store that keeps everything. Every
/// outcome must agree, and in the end the values, each key's kept history
/// (a newest-first prefix of the whole one, at least 2 entries long) and
/// the changes after the compacted store's horizon.
@Suite(.timeLimit(.minutes(2))) struct CompactionBesideBindingsTests {
    static let bases = ["a", "b", "c"].map { key($0) }
    static let derived: [(key: Key, expression: String)] = [
        (key("d1"), "a.map { $0 * 2 }"),
        (key("d2"), "combineLatest(a, b).map { x, y in x + y }"),
        (key("d3"), "d1.map { $0 + 1 }"),
    ]
    static var keys: [Key] { bases + derived.map(\.key) }

    /// One case per seed, each within the suite's time limit: the eight
    /// seeds' 4,800 awaited writes take 2 s alone, and took over two
    /// minutes in one case while the whole suite shared two cores.
    @Test(arguments: UInt64(1)...8)
    func aCompactedHistoryAgreesWithAWholeOneAcrossBindingsAndReopens(seed: UInt64) async throws {
        try await Self.run(seed: seed, operations: 300)
    }

    static func run(seed: UInt64, operations: Int) async throws {
        let whole = try Side(historyPerKey: 1_000_000)
        var compacted = try Side(historyPerKey: 2)
        defer {
            for directory in [whole.directory, compacted.directory] { try? FileManager.default.removeItem(atPath: directory) }
        }
        var rng = SplitMix(seed: seed)
        for step in 0..<operations {
            let choice = Int.random(in: 0..<20, using: &rng)
            if choice == 19 {
                compacted = try compacted.reopened()
                continue
            }
            let operation = Self.operation(choice, &rng)
            let expected = await operation(whole.service)
            let actual = await operation(compacted.service)
            #expect(actual == expected, "seed \(seed), step \(step)")
        }
        #expect(try compacted.store.list().properties == whole.store.list().properties, "seed \(seed)")
        for k in keys {
            let kept = try compacted.store.history(of: k)
            let all = try whole.store.history(of: k)
            #expect(kept.count >= min(2, all.count), "seed \(seed), history of \(k)")
            #expect(kept == Array(all.prefix(kept.count)), "seed \(seed), history of \(k)")
        }
        let since = Revision(try compacted.store.oldestCompleteRevision().rawValue - 1)
        #expect(
            try compacted.store.changes(after: since).changeSets == whole.store.changes(after: since).changeSets,
            "seed \(seed), changes after \(since)")
    }

    /// One write, as a function of the service it goes to; its outcome is
    /// the revision or the error's text.
    static func operation(_ choice: Int, _ rng: inout SplitMix) -> @Sendable (PropertyService) async -> String {
        let base = bases[Int.random(in: 0..<bases.count, using: &rng)]
        let other = bases[Int.random(in: 0..<bases.count, using: &rng)]
        let value = JSONValue.integer(Int64.random(in: -3...9, using: &rng))
        let binding = derived[Int.random(in: 0..<derived.count, using: &rng)]
        switch choice {
        case 0..<9: return { service in await outcome { try await service.set([base: value]) } }
        case 9..<12:
            // Two keys in one Set (one, when `other` is `base`: the later value wins).
            let values = [base: value].merging([other: .integer(1)]) { _, later in later }
            return { service in await outcome { try await service.set(values) } }
        case 12..<14: return { service in await outcome { try await service.delete([base]) } }
        case 14..<17:
            return { service in
                await outcome { try await service.bind(binding.key, expression: binding.expression).revision }
            }
        default: return { service in await outcome { try await service.unbind(binding.key) } }
        }
    }

    static func outcome(_ write: () async throws -> Revision) async -> String {
        do { return "\(try await write())" } catch { return "\(error)" }
    }

    /// A store in a directory of its own and the service on it.
    final class Side {
        let directory: String
        let historyPerKey: Int
        let store: PropertyStore
        let service: PropertyService

        init(historyPerKey: Int, directory: String? = nil) throws {
            self.directory = directory ?? NSTemporaryDirectory() + "propd-compaction-\(UUID().uuidString)"
            self.historyPerKey = historyPerKey
            try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
            store = try PropertyStore(
                path: self.directory + "/propd.db",
                configuration: StoreConfiguration(durability: .normal, historyPerKey: historyPerKey))
            service = try PropertyService(store: store, logger: Logger(label: "propd.test"))
        }

        /// The same database opened again, as after a restart: the service
        /// restores its bindings, the store remembers nothing of its passes.
        func reopened() throws -> Side {
            service.shutdown()
            store.close()
            return try Side(historyPerKey: historyPerKey, directory: directory)
        }

        deinit {
            service.shutdown()
            store.close()
        }
    }
}
