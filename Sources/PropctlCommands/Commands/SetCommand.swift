import ArgumentParser
import PropdClient
import PropdCore

/// `propctl set KEY VALUE [KEY VALUE ...] [--expect REV] [--string | --strict]`
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Write one or more properties atomically, as one revision.",
        discussion: """
            VALUE is JSON when it parses as JSON, otherwise the text itself: 21.5, -3 and \
            true are numbers and a bool, Ada is a string. A VALUE that looks like JSON (it \
            starts with { [ " a digit or -) but does not parse is refused; --string stores \
            every VALUE as text whatever it looks like, --strict refuses every VALUE that \
            is not JSON. A VALUE of - reads the value from standard input, @FILE from a \
            file (one final newline is dropped). Negative numbers need no --. Prints the \
            new revision.

            Examples:
              propctl set room.temp 21.5
              propctl set name Ada greeting 'hello world'
              propctl set zip 01234 --string
              propctl set offset -40
              propctl set motd - < motd.txt
              propctl set config @config.json --strict
              propctl set config '{"mode": "eco", "level": 3}'
              propctl set room.temp 22 --expect 41      # only if room.temp is still at revision 41
              propctl set lock.owner me --expect 0      # only if lock.owner does not exist
              propctl set node.a.alive true --ttl 30s   # deleted 30 s later unless set again
            """)

    @OptionGroup var global: GlobalOptions

    // allUnrecognized: a VALUE such as -40 is a value, not an unknown flag.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Pairs of key and value.", valueName: "key value"))
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

    @Flag(help: "Refuse every VALUE that is not JSON (no fallback to a string).")
    var strict = false

    /// The pairs without the `--` terminator, which allUnrecognized keeps.
    var arguments: [String] {
        guard let terminator = pairs.firstIndex(of: "--") else { return pairs }
        var arguments = pairs
        arguments.remove(at: terminator)
        return arguments
    }

    func validate() throws {
        // allUnrecognized also collects misspelt flags: a value is never `--x`
        // (before a `--` terminator).
        if let unknown = pairs.prefix(while: { $0 != "--" }).first(where: { $0.hasPrefix("--") }) {
            throw ValidationError("Unknown option '\(unknown)'.")
        }
        let pairs = arguments
        guard !pairs.isEmpty else { throw ValidationError("Missing KEY VALUE.") }
        guard pairs.count.isMultiple(of: 2) else {
            throw ValidationError("Missing a value for '\(pairs[pairs.count - 1])': give KEY VALUE pairs.")
        }
        if let expect, expect < 0 { throw ValidationError("--expect must be 0 or a revision.") }
        if string, strict { throw ValidationError("--string and --strict cannot be combined.") }
        for i in stride(from: 0, to: pairs.count, by: 2) where pairs[i].hasPrefix("-") {
            throw ValidationError("Unknown option '\(pairs[i])'.")
        }
    }

    func run() async throws {
        let pairs = arguments
        var values: [String: JSONValue] = [:]
        var expectations: [String: Revision] = [:]
        var reader = ValueArgument(mode: string ? .string : strict ? .strict : .inferred)
        for i in stride(from: 0, to: pairs.count, by: 2) {
            guard values[pairs[i]] == nil else { throw PropctlFailure.usage("'\(pairs[i])' is given twice") }
            values[pairs[i]] = try reader.value(of: pairs[i + 1], for: pairs[i])
            if let expect { expectations[pairs[i]] = Revision(expect) }
        }
        let revision = try await global.withClient { client throws(PropdClientError) in
            try await client.set(values, expect: expectations, ttl: ttl?.milliseconds)
        }
        global.printRevision(revision)
    }
}
