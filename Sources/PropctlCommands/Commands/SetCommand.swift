import ArgumentParser
import PropdClient
import PropdCore

/// `propctl set KEY VALUE [KEY VALUE ...] [--expect REV]`
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Write one or more properties atomically, as one revision.",
        discussion: """
            VALUE is JSON when it parses as JSON, otherwise the text itself: 21.5 and true \
            are a number and a bool, Ada is a string. Use --string to store the text as a \
            string whatever it looks like. Prints the new revision.

            Examples:
              propctl set room.temp 21.5
              propctl set name Ada greeting 'hello world'
              propctl set zip 01234 --string
              propctl set config '{"mode": "eco", "level": 3}'
              propctl set room.temp 22 --expect 41      # only if room.temp is still at revision 41
              propctl set lock.owner me --expect 0      # only if lock.owner does not exist
              propctl set node.a.alive true --ttl 30s   # deleted 30 s later unless set again
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Pairs of key and value.", valueName: "key value"))
    var pairs: [String] = []

    @Option(help: ArgumentHelp(
        "Write only if every key is still at this revision (0: only if none exists).", valueName: "rev"))
    var expect: Int64?

    @Option(help: ArgumentHelp(
        "Delete the keys this long after the write unless set again (ms, s, m, h; at most 2^31 ms).",
        valueName: "duration"))
    var ttl: TimeToLive?

    @Flag(help: "Store every VALUE as a string, even when it looks like JSON.")
    var string = false

    func validate() throws {
        guard !pairs.isEmpty else { throw ValidationError("Missing KEY VALUE.") }
        guard pairs.count.isMultiple(of: 2) else {
            throw ValidationError("Missing a value for '\(pairs[pairs.count - 1])': give KEY VALUE pairs.")
        }
        if let expect, expect < 0 { throw ValidationError("--expect must be 0 or a revision.") }
    }

    func run() async throws {
        var values: [String: JSONValue] = [:]
        var expectations: [String: Revision] = [:]
        for i in stride(from: 0, to: pairs.count, by: 2) {
            guard values[pairs[i]] == nil else { throw PropctlFailure.usage("'\(pairs[i])' is given twice") }
            values[pairs[i]] = ValueArgument.parse(pairs[i + 1], forceString: string)
            if let expect { expectations[pairs[i]] = Revision(expect) }
        }
        let revision = try await global.withClient { client throws(PropdClientError) in
            try await client.set(values, expect: expectations, ttl: ttl?.milliseconds)
        }
        global.printRevision(revision)
    }
}
