import ArgumentParser
import PropdClient
import PropdCore

/// `propctl graph [PATTERN]`
struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print the binding graph in Graphviz DOT.",
        discussion: """
            Sources are ellipses, derived keys boxes, and each edge is labelled with the \
            operators of the binding (read from its expression). A derived key in an error \
            state is red, with its error. flatMap edges are dashed: they also follow keys \
            chosen at run time; so is the edge from takeUntil's key, labelled takeUntil \
            (its changes end the stream, its values are not read). PATTERN selects derived keys. --json prints \
            {"nodes": [...], "edges": [...]}.

            Examples:
              propctl graph | dot -Tsvg > bindings.svg
              propctl graph 'ui.**' | dot -Tpng -o ui.png
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Which derived keys, e.g. 'ui.**'.", valueName: "pattern"))
    var pattern: String?

    func run() async throws {
        let bindings = try await global.withClient { client throws(PropdClientError) in
            try await client.bindings(pattern)
        }
        let graph = BindingGraph(bindings: bindings)
        if global.json {
            WireJSON.print(graph.json)
        } else {
            StandardStreams.out(TerminalText.escaped(graph.dot, keepingNewlines: true))
        }
    }
}
