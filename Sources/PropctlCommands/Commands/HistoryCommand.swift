import ArgumentParser
import PropdClient
import PropdCore

/// `propctl history KEY [--limit N]`
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the past changes of a key, newest first.",
        discussion: """
            Prints aligned REV KIND VALUE lines. --json prints {"entries": [...]}.

            Examples:
              propctl history room.temp
              propctl history room.temp --limit 5
              propctl history room.temp --before 120
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The key.", valueName: "key"))
    var key: String

    @Option(help: ArgumentHelp("At most this many entries.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("Only changes before this revision.", valueName: "rev"))
    var before: Int64?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
    }

    func run() async throws {
        let entries = try await global.withClient { client throws(PropdClientError) in
            try await client.history(key, limit: limit, before: before.map { Revision($0) })
        }
        if global.json {
            WireJSON.print(.object(["entries": .array(entries.map(WireJSON.event))]))
            return
        }
        let style = Style.standardOutput
        var table = Table(header: ["REV", "KIND", "VALUE"], style: style)
        for e in entries {
            table.append(EventLine.cells(e, style: style, withKey: false))
        }
        if !entries.isEmpty { StandardStreams.out(table.render()) }
    }
}
