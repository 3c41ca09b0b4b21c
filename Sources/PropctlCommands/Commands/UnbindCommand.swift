import ArgumentParser
import PropdClient
import PropdCore

/// `propctl unbind KEY`
struct UnbindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unbind",
        abstract: "Remove the binding of a key; the key keeps its last value as a plain property.",
        discussion: """
            Prints the new revision.

            Example:
              propctl unbind room.fahrenheit
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The derived key.", valueName: "key"))
    var key: String

    func run() async throws {
        let revision = try await global.withClient { client throws(PropdClientError) in
            try await client.unbind(key)
        }
        global.printRevision(revision)
    }
}
