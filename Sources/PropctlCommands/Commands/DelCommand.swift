import ArgumentParser
import PropdClient
import PropdCore

/// `propctl del KEY ...`
struct DelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "del",
        abstract: "Delete one or more properties atomically, as one revision.",
        discussion: """
            Deleting a key that does not exist is an error and deletes nothing. Prints the \
            new revision.

            Examples:
              propctl del room.temp
              propctl del session.a session.b --expect 17
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The keys to delete.", valueName: "key"))
    var keys: [String] = []

    @Option(help: ArgumentHelp("Delete only if every key is still at this revision.", valueName: "rev"))
    var expect: Int64?

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("Missing KEY.") }
        if let expect, expect < 0 { throw ValidationError("--expect must be a revision.") }
    }

    func run() async throws {
        var expectations: [String: Revision] = [:]
        if let expect { for key in keys { expectations[key] = Revision(expect) } }
        let revision = try await global.withClient { client throws(PropdClientError) in
            try await client.delete(keys, expect: expectations)
        }
        global.printRevision(revision)
    }
}
