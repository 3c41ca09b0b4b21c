import ArgumentParser
import PropdClient
import PropdCore

/// `propctl get KEY ...`
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the value of one or more properties.",
        discussion: """
            With one key, prints just the value: a string as its raw text, anything else \
            as JSON, so `$(propctl get name)` is Ada, not "Ada". With several keys, prints \
            aligned KEY VALUE lines. --json prints {"properties": [...]} with revisions.

            Examples:
              propctl get room.temp
              echo "hello $(propctl get name)"
              propctl get room.temp room.humidity
              propctl --json get room.temp
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The keys to read.", valueName: "key"))
    var keys: [String] = []

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("Missing KEY.") }
    }

    func run() async throws {
        let properties = try await global.withClient { client throws(PropdClientError) in
            try await client.get(keys)
        }
        if global.json {
            WireJSON.print(.object(["properties": .array(properties.map(WireJSON.property))]))
        } else if properties.count == 1 {
            StandardStreams.out(ValueArgument.display(properties[0].value) + "\n")
        } else {
            let style = Style.standardOutput
            var table = Table(style: style)
            for p in properties {
                table.append([.init(text: p.key.rawValue, paint: style.bold), .init(text: ValueArgument.cell(p.value))])
            }
            StandardStreams.out(table.render())
        }
    }
}
