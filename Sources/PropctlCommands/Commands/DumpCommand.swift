import ArgumentParser
import PropdClient
import PropdCore

/// `propctl dump`
struct DumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write every property and binding as JSON to stdout (restore it with load).",
        discussion: """
            The dump is one JSON document: {"format": "propd-dump", "version": 1, \
            "revision": N, "properties": [...], "bindings": [...]}, one property per line. \
            Properties and bindings are read at the same store revision (propctl re-reads \
            if a write slipped in between).

            Examples:
              propctl dump > propd-backup.json
              propctl dump | ssh other-host propctl load -
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let document = try await global.withClient { client throws(PropdClientError) in
            try await Self.consistentDump(client)
        }
        StandardStreams.out(TerminalText.escaped(document.text, keepingNewlines: true))
    }

    /// Lists, reads the bindings, and checks the store revision did not move
    /// in between; retries a few times if it did.
    static func consistentDump(_ client: PropdClient) async throws(PropdClientError) -> DumpDocument {
        var attempt = 0
        while true {
            attempt += 1
            let (properties, revision) = try await client.list()
            let bindings = try await client.bindings()
            let after = try await client.list(limit: 1).revision
            if after == revision || attempt >= 5 {
                return DumpDocument(revision: revision, properties: properties, bindings: bindings)
            }
        }
    }
}
