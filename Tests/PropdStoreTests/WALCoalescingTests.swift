import Foundation
import PropdCore
import PropdStore
import Testing

/// The writer's connection writes each transaction's log frames together
/// (`Sources/CSQLite/WALCoalescingVFS.c`). Whatever it holds back, the log
/// is whole whenever anyone can look: every commit is read at once by the
/// other connections, a transaction larger than the buffer or than the
/// page cache comes back whole, and the log restarts after checkpoints.
/// (The crash test, `CrashTests`, kills a writer at random moments.)
@Suite struct WALCoalescingTests {
    @Test func eachCommitIsReadAtOnceByTheReadersConnections() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        for n in 1...200 {
            try await store.write(WriteRequest(set: [key("k.\(n % 7)"): .integer(Int64(n))]))
            // Reads go through connections of their own, outside the writer's VFS.
            #expect(try store.get([key("k.\(n % 7)")]).properties.first??.value == .integer(Int64(n)))
        }
    }

    @Test(arguments: [
        (keys: 200, valueBytes: 2_000),  // 400 kB: past the 256 KiB buffer
        (keys: 3_000, valueBytes: 4_000),  // 12 MB: past the writer's page cache, which spills into the log
    ])
    func aTransactionLargerThanTheBufferComesBackWhole(keys: Int, valueBytes: Int) async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let text = String(repeating: "v", count: valueBytes)
        var values: [Key: JSONValue] = [:]
        for n in 0..<keys { values[key("big.\(n)")] = .string("\(n) \(text)") }
        #expect(try await store.write(WriteRequest(set: values)).revision == 1)
        let read = try store.get((0..<keys).map { key("big.\($0)") }).properties
        #expect(read.count == keys)
        #expect(read.enumerated().allSatisfy { n, property in property?.value == .string("\(n) \(text)") })
        try await store.write(WriteRequest(set: [key("after"): 1]))
        #expect(try InspectedDatabase(dir.databasePath).strings("PRAGMA integrity_check") == ["ok"])
    }

    @Test func theLogRestartsAfterCheckpointsWithEveryWriteKept() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            for round in 0..<5 {
                for n in 1...50 {
                    try await store.write(WriteRequest(set: [key("k.\(n)"): .integer(Int64(round * 100 + n))]))
                }
                // Truncated: the next transaction writes a new log from its start.
                try store.checkpoint()
            }
            try await store.write(WriteRequest(set: [key("last"): "yes"]))
            store.close()
        }
        let reopened = try openStore(dir)
        #expect(reopened.revision == 251)
        #expect(try reopened.get([key("k.50"), key("last")]).properties.map { $0?.value } == [.integer(450), "yes"])
        #expect(try InspectedDatabase(dir.databasePath).strings("PRAGMA integrity_check") == ["ok"])
    }
}
