// The child of the store's crash test (Tests/PropdStoreTests/CrashTests.swift).
//
//   propd-store-crasher DATABASE full|normal WRITERS
//
// Opens the store and writes forever from WRITERS concurrent tasks. Request
// number n (counted per writer: n = writer + WRITERS * i) sets, as ONE revision:
//   a.<n % 7> = n,  b.<n % 5> = n,  c = {"n": n}
// and once the store has acknowledged it, prints "REVISION n" on a line of its
// own (one write(2) per line, so lines never interleave). The parent kills it
// with SIGKILL at random moments and checks the database.
import Foundation
import PropdCore
import PropdStore

let arguments = CommandLine.arguments
guard arguments.count == 4, let durability = StoreConfiguration.Durability(rawValue: arguments[2]),
    let writers = Int(arguments[3]), writers > 0
else {
    FileHandle.standardError.write(Data("usage: propd-store-crasher DATABASE full|normal WRITERS\n".utf8))
    exit(2)
}

func keys(for n: Int) throws -> (a: Key, b: Key, c: Key) {
    (try Key("a.\(n % 7)"), try Key("b.\(n % 5)"), try Key("c"))
}

do {
    // No compaction during the test: every acknowledged revision must stay checkable.
    let store = try PropertyStore(
        path: arguments[1], configuration: StoreConfiguration(durability: durability, historyPerKey: 1_000_000))
    // A distinct range of n per run, so values from different runs never coincide.
    let base = Int(store.revision.rawValue) * 1000
    FileHandle.standardOutput.write(Data("OPEN \(store.revision)\n".utf8))
    await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<writers {
            group.addTask {
                var i = 0
                while true {
                    let n = base + writer + writers * i
                    let (a, b, c) = try keys(for: n)
                    let changes = try await store.write(
                        WriteRequest(set: [a: .integer(Int64(n)), b: .integer(Int64(n)), c: ["n": .integer(Int64(n))]]))
                    FileHandle.standardOutput.write(Data("\(changes.revision) \(n)\n".utf8))
                    i += 1
                }
            }
        }
        do {
            try await group.waitForAll()
        } catch {
            FileHandle.standardError.write(Data("write failed: \(error)\n".utf8))
            exit(1)
        }
    }
} catch {
    FileHandle.standardError.write(Data("cannot open the store: \(error)\n".utf8))
    exit(1)
}
