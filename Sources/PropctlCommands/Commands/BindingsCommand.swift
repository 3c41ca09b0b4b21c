import ArgumentParser
import PropdClient
import PropdCore

/// `propctl bindings [PATTERN]`
struct BindingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bindings",
        abstract: "List the declared bindings, sorted by key.",
        discussion: """
            Prints aligned KEY SOURCES EXPRESSION lines; a binding in an error state shows \
            its error. --json prints {"bindings": [...]}.

            Examples:
              propctl bindings
              propctl bindings 'ui.**'
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Which derived keys, e.g. 'ui.**'.", valueName: "pattern"))
    var pattern: String?

    func run() async throws {
        let bindings = try await global.withClient { client throws(PropdClientError) in
            try await client.bindings(pattern)
        }
        if global.json {
            WireJSON.print(.object(["bindings": .array(bindings.map(WireJSON.binding))]))
            return
        }
        let style = Style.standardOutput
        var table = Table(header: ["KEY", "SOURCES", "EXPRESSION", ""], style: style)
        for b in bindings {
            let expression = b.expression.split(separator: "\n").map { $0.trimmingBlanks }.joined(separator: " ")
            table.append([
                .init(text: b.key, paint: style.bold),
                .init(text: b.sources.joined(separator: ","), paint: style.dim),
                .init(text: expression, paint: style.cyan),
                .init(text: b.error.map { "! " + $0 } ?? "", paint: style.red),
            ])
        }
        if !bindings.isEmpty { StandardStreams.out(table.render()) }
    }
}
