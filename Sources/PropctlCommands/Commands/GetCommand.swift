import ArgumentParser
import PropdClient
import PropdCore

/// `propctl get KEY ... [--rev N]`
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the value of one or more properties.",
        discussion: """
            With one key, prints just the value: a string as its raw text, anything else \
            as JSON, so `$(propctl get name)` is Ada, not "Ada" (on a terminal, control \
            characters are shown escaped). With several keys, prints aligned KEY VALUE \
            lines. --json prints {"properties": [...]} with revisions. --rev N reads the \
            values as they were at revision N, from history.

            A derived key in an evaluation error prints the value it kept, the error on \
            stderr, and exits with status 4.

            Examples:
              propctl get room.temp
              echo "hello $(propctl get name)"
              propctl get room.temp room.humidity
              propctl get room.temp --rev 1200
              propctl --json get room.temp
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The keys to read.", valueName: "key"), completion: .custom(KeyCompletion.keys))
    var keys: [String] = []

    @Option(name: .customLong("rev"), help: ArgumentHelp("Read the values as of this revision.", valueName: "n"))
    var revision: Int64?

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("Missing KEY.") }
        if let revision, revision < 1 { throw ValidationError("--rev must be a revision (1 or more).") }
    }

    func run() async throws {
        let properties = try await global.withClient { client throws(PropdClientError) in
            try await client.get(keys, revision: revision.map { Revision($0) })
        }
        if global.json {
            WireJSON.print(.object(["properties": .array(properties.map(WireJSON.property))]))
        } else if properties.count == 1 {
            let text = ValueArgument.display(properties[0].value)
            StandardStreams.out((StandardStreams.outputIsTerminal ? TerminalText.escaped(text) : text) + "\n")
        } else {
            let style = Style.standardOutput
            var table = Table(style: style)
            for p in properties {
                table.append([.init(text: p.key.rawValue, paint: style.bold), .init(text: ValueArgument.cell(p.value))])
            }
            StandardStreams.out(table.render())
        }
        let inError = properties.filter { $0.error != nil }
        guard !inError.isEmpty else { return }
        throw PropctlFailure(kind: .derivedKeyInError, lines: inError.map { p in
            let kept = p.value == nil ? "it has no value yet" : "the value shown is the last one it had"
            return "error: \(p.key) is in an evaluation error: \(TerminalText.escaped(p.error ?? "")) (\(kept))"
        })
    }
}
