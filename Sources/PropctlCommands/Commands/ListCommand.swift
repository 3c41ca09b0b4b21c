import ArgumentParser
import PropdClient
import PropdCore

/// `propctl list [PATTERN]`
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List properties matching a pattern (all by default), sorted by key.",
        discussion: """
            Prints aligned KEY VALUE REVISION lines; a derived property is marked with = \
            and an evaluation error with !. A pattern's segments may be * (one segment) \
            or, last, ** (one or more). --json prints {"properties": [...], "revision": N}.

            Examples:
              propctl list
              propctl list 'room.*'
              propctl --json list 'ui.**'
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Which keys, e.g. 'room.*' or 'ui.**'.", valueName: "pattern"))
    var pattern: String?

    @Option(help: ArgumentHelp("At most this many properties.", valueName: "n"))
    var limit: Int?

    func run() async throws {
        let (properties, revision) = try await global.withClient { client throws(PropdClientError) in
            try await client.list(pattern, limit: limit)
        }
        if global.json {
            WireJSON.print(.object([
                "properties": .array(properties.map(WireJSON.property)), "revision": .integer(revision.rawValue),
            ]))
            return
        }
        let style = Style.standardOutput
        var table = Table(header: ["KEY", "VALUE", "REV", ""], style: style)
        for p in properties {
            var mark = p.binding.map { "= " + $0.split(separator: "\n").map { $0.trimmingBlanks }.joined(separator: " ") } ?? ""
            if let error = p.error { mark = "! " + error }
            table.append([
                .init(text: p.key.rawValue, paint: style.bold),
                .init(text: ValueArgument.cell(p.value)),
                .init(text: String(p.revision.rawValue), paint: style.dim),
                .init(text: mark, paint: { p.error == nil ? style.cyan($0) : style.red($0) }),
            ])
        }
        if !properties.isEmpty { StandardStreams.out(table.render()) }
    }
}
