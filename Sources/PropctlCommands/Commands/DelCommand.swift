import ArgumentParser
import PropdClient
import PropdCore

/// `propctl del KEY ... [--pattern PATTERN ...] [--expect REV]`
struct DelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "del",
        abstract: "Delete one or more properties atomically, as one revision.",
        discussion: """
            Deleting a key that does not exist is an error and deletes nothing. --pattern \\
            also deletes every plain (not derived) key matching the pattern, in the same \\
            revision; a pattern that matches nothing deletes nothing and consumes no \\
            revision. Prints the new revision (or the current one when nothing was deleted).

            Examples:
              propctl del room.temp
              propctl del session.a session.b --expect 17
              propctl del --pattern 'room.**'
              propctl del --pattern 'cache.*' --pattern 'tmp.**'
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The keys to delete.", valueName: "key"), completion: .custom(KeyCompletion.keys))
    var keys: [String] = []

    @Option(
        name: .customLong("pattern"),
        help: ArgumentHelp("Also delete every plain key matching this pattern (repeatable).", valueName: "pattern"),
        completion: .custom(KeyCompletion.patterns))
    var patterns: [String] = []

    @Option(help: ArgumentHelp("Delete only if every key is still at this revision.", valueName: "rev"))
    var expect: Int64?

    func validate() throws {
        guard !keys.isEmpty || !patterns.isEmpty else { throw ValidationError("Missing KEY (or --pattern PATTERN).") }
        if let expect, expect < 0 { throw ValidationError("--expect must be a revision.") }
    }

    func run() async throws {
        var expectations: [String: Revision] = [:]
        if let expect { for key in keys { expectations[key] = Revision(expect) } }
        let revision = try await global.withClient { client throws(PropdClientError) in
            try await client.delete(keys, expect: expectations, patterns: patterns)
        }
        global.printRevision(revision)
    }
}
