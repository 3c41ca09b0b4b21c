import ArgumentParser
import Foundation
import PropdClient
import PropdCore

/// `propctl load FILE`
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Restore a dump: every property and binding, all or nothing.",
        discussion: """
            Plain properties are written in ONE Set (one revision), each expected to be \
            unchanged since propctl read the store; then every binding is declared. If the \
            daemon refuses anything, what was done is undone: bindings are put back as \
            they were, and written values are restored (or deleted if they were new). \
            Keys not in the dump are left alone. A binding dumped with its operator \
            state continues from it (scan accumulators, take/skip counters, the last \
            values of filter and distinctUntilChanged, pending throttle, delay and \
            timeout timers) and keeps its dumped value; one without state is \
            recomputed from its sources. Keys that expire are then written again with \
            the time they had left (one Set per deadline; a deadline already past \
            expires at once). Revisions are the new store's own.

            Examples:
              propctl load propd-backup.json
              propctl dump | ssh other-host propctl load -
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("A file written by propctl dump ('-' for stdin).", valueName: "file"),
        completion: .file(extensions: ["json"]))
    var file: String

    func run() async throws {
        let text = try TextFile.read(file)
        let dumped: [DumpDocument.PlainValue]
        let bindings: [DumpDocument.Binding]
        do {
            let document = try DumpDocument(parsing: text)
            dumped = try document.plainValues()
            bindings = try document.declaredBindings()
        } catch {
            throw PropctlFailure.usage("\(file): \(error.description)")
        }
        // The connection closes when the process exits, right after.
        let client = try await global.connect()
        let socket = global.socketChoice

        // 1. Every plain value in one revision, expecting what we read.
        var values = dumped
        var before: [String: Property] = [:]
        var written: Revision?
        if !values.isEmpty {
            do {
                for p in try await client.list().properties { before[p.key.rawValue] = p }
                // A key already derived here keeps its value: Bind replaces its binding.
                values.removeAll { $0.isDerived && before[$0.key]?.binding != nil }
                var expect: [String: Revision] = [:]
                var set: [String: JSONValue] = [:]
                for v in values {
                    set[v.key] = v.value
                    expect[v.key] = before[v.key]?.revision ?? Revision.none
                }
                written = try await client.set(set, expect: expect)
            } catch {
                throw PropctlFailure(error, socket: socket, more: ["nothing was loaded"])
            }
        }

        // 2. The bindings, all or nothing; on refusal, undo step 1 too.
        var revision = written ?? .none
        if !bindings.isEmpty {
            do {
                revision = try await BindingTransaction(client: client)
                    .apply(bindings.map { .init(key: $0.key, expression: $0.expression, state: $0.state) }).revision
            } catch {
                var lines: [String] = []
                if error.index >= 0, error.index < bindings.count {
                    lines.append("refused binding \(bindings[error.index].key) = \(bindings[error.index].expression)")
                }
                lines += error.undoFailures.map { "could not undo: " + $0 }
                if let written {
                    lines += await undoValues(values, before: before, written: written, client: client)
                }
                if lines.count <= 1 { lines.append("nothing was loaded: every change was undone") }
                throw PropctlFailure(error.error, socket: socket, more: lines)
            }
        }
        // 3. Keys that expire, with the time they have left.
        if let written {
            do throws(PropdClientError) {
                if let last = try await expireAgain(values, written: written, client: client) { revision = last }
            } catch {
                throw PropctlFailure(error, socket: socket, more: ["everything was loaded, but some keys do not expire"])
            }
        }
        if global.json {
            WireJSON.print(.object([
                "revision": .integer(revision.rawValue), "properties": .integer(Int64(values.count(where: { !$0.isDerived }))),
                "bindings": .integer(Int64(bindings.count)),
            ]))
        } else {
            StandardStreams.out("\(revision)  loaded \(values.count(where: { !$0.isDerived })) properties and \(bindings.count) bindings from \(file)\n")
        }
    }

    /// Sets the keys that expire again with `ttl`, one Set per deadline,
    /// each expecting the key unchanged since step 1. Returns the last revision.
    private func expireAgain(_ values: [DumpDocument.PlainValue], written: Revision, client: PropdClient)
        async throws(PropdClientError) -> Revision?
    {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var last: Revision?
        let groups = Dictionary(grouping: values.filter { $0.expires != nil }) { $0.expires ?? 0 }
        for (deadline, group) in groups.sorted(by: { $0.key < $1.key }) {
            var set: [String: JSONValue] = [:]
            var expect: [String: Revision] = [:]
            for value in group {
                set[value.key] = value.value
                expect[value.key] = written
            }
            let ttl = min(max(1, deadline - now), 1 << 31)
            last = try await client.set(set, expect: expect, ttl: ttl)
        }
        return last
    }

    /// Restores the values step 1 overwrote and deletes the keys it created,
    /// expecting each to be still as written.
    private func undoValues(
        _ values: [DumpDocument.PlainValue], before: [String: Property], written: Revision, client: PropdClient
    ) async -> [String] {
        var restore: [String: JSONValue] = [:]
        var created: [String] = []
        var expect: [String: Revision] = [:]
        for v in values {
            if let old = before[v.key] {
                if let value = old.value { restore[v.key] = value }
            } else {
                created.append(v.key)
            }
            expect[v.key] = written
        }
        do {
            if !restore.isEmpty { try await client.set(restore, expect: expect.filter { restore[$0.key] != nil }) }
            if !created.isEmpty { try await client.delete(created, expect: expect.filter { created.contains($0.key) }) }
            return []
        } catch {
            return ["could not undo the values written at revision \(written): \(error.description)"]
        }
    }
}
