import Foundation
import PropdTestSupport
import PropdCore
import PropdStore
import Testing

/// A real child process writes in a loop and reports each acknowledged
/// revision; it is SIGKILLed at random moments. After every kill the database
/// must hold every acknowledged revision with its values, no half-written
/// revision, and pass `PRAGMA integrity_check`.
@Suite struct CrashTests {
    /// The crasher is built next to the test bundle (`swift build --build-tests`).
    static func crasherURL() throws -> URL {
        var candidates: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        for directory in candidates {
            let url = directory.appendingPathComponent("propd-store-crasher")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw CrasherNotFound(searched: candidates.map(\.path))
    }

    struct CrasherNotFound: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "propd-store-crasher not found in \(searched); run swift build --build-tests" }
    }

    /// One run of the child: returns the acknowledged (revision, n) pairs it
    /// printed before being killed after `killAfter` acknowledgements.
    static func runChild(crasher: URL, database: String, durability: String, killAfter: Int) throws -> [(Int64, Int)] {
        let process = Process()
        process.executableURL = crasher
        process.arguments = [database, durability, "4"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try ProcessLaunch.run(process)
        // A watchdog, not a synchronisation: a hung child fails the test instead of hanging it.
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        defer { watchdog.cancel() }

        var acknowledged: [(Int64, Int)] = []
        var opened = false
        var buffer = Data()
        var killed = false
        let reader = output.fileHandleForReading
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }  // EOF: the child is gone
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                let parts = line.split(separator: " ")
                if parts.first == "OPEN" {
                    opened = true
                } else if parts.count == 2, let revision = Int64(parts[0]), let n = Int(parts[1]) {
                    acknowledged.append((revision, n))
                } else {
                    Issue.record("unexpected line from the crasher: \(line)")
                }
            }
            if !killed, opened, acknowledged.count >= killAfter {
                kill(pid, SIGKILL)
                killed = true
            }
        }
        let status = ChildExit.wait(process)
        #expect(status == 128 + SIGKILL, "the child ended otherwise than by our SIGKILL: status \(status)")
        return acknowledged
    }

    static func expectedChanges(_ n: Int) -> [Change] {
        let value = JSONValue.integer(Int64(n))
        return [.set(key("a.\(n % 7)"), value), .set(key("b.\(n % 5)"), value), .set(key("c"), ["n": value])]
    }

    @Test func acknowledgedWritesSurviveSIGKILL() throws {
        let crasher = try Self.crasherURL()
        let dir = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        var allAcknowledged: [Int64: Int] = [:]
        let rounds = 24
        for round in 0..<rounds {
            let durability = round % 2 == 0 ? "full" : "normal"
            // Sometimes right after opening, mostly in full flow.
            let killAfter = round % 6 == 0 ? 0 : Int.random(in: 1...400, using: &generator)
            let acknowledged = try Self.runChild(
                crasher: crasher, database: dir.databasePath, durability: durability, killAfter: killAfter)
            #expect(acknowledged.count >= killAfter)
            for (revision, n) in acknowledged {
                #expect(allAcknowledged[revision] == nil, "revision \(revision) acknowledged twice")
                allAcknowledged[revision] = n
            }

            #expect(try InspectedDatabase(dir.databasePath).strings("PRAGMA integrity_check") == ["ok"], "round \(round)")

            let store = try PropertyStore(path: dir.databasePath, configuration: StoreConfiguration(historyPerKey: 1_000_000))
            let history = try store.changes(after: 0)
            // Every committed revision is whole: exactly the three changes of one request.
            #expect(history.changeSets.map(\.revision.rawValue) == (0..<history.revision.rawValue).map { $0 + 1 })
            var nByRevision: [Int64: Int] = [:]
            for changeSet in history.changeSets {
                guard case .set(.object(let c))? = changeSet.changes.first(where: { $0.key == key("c") })?.kind,
                    case .integer(let n)? = c["n"]
                else {
                    Issue.record("revision \(changeSet.revision) has no c: \(changeSet.changes)")
                    continue
                }
                nByRevision[changeSet.revision.rawValue] = Int(n)
                #expect(changeSet.changes.sorted { $0.key < $1.key } == Self.expectedChanges(Int(n)), "revision \(changeSet.revision)")
            }
            // Every acknowledged revision is there, with the acknowledged request's values.
            for (revision, n) in allAcknowledged {
                #expect(nByRevision[revision] == n, "acknowledged revision \(revision) (n = \(n)) lost after round \(round)")
            }
            // The current values are those of each key's last change.
            var latest: [Key: (Revision, JSONValue)] = [:]
            for changeSet in history.changeSets {
                for change in changeSet.changes {
                    if case .set(let value) = change.kind { latest[change.key] = (changeSet.revision, value) }
                }
            }
            let current = try store.list().properties
            #expect(current.count == latest.count)
            for property in current {
                #expect(latest[property.key]?.0 == property.revision)
                #expect(latest[property.key]?.1 == property.value)
            }
        }
        #expect(allAcknowledged.count > 0)
    }
}
