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

    @Argument(help: ArgumentHelp("The derived key.", valueName: "key"), completion: .custom(KeyCompletion.keys))
    var key: String

    func run() async throws {
        let client = try await global.connect()
        do {
            let revision = try await client.unbind(key)
            await client.close()
            global.printRevision(revision)
        } catch .refused(.noSuchKey(let missing)) where missing == key {
            // The daemon answers NoSuchKey for a key without a binding; say
            // which it is when the key exists as a plain property.
            let exists = (try? await client.get([key]))?.isEmpty == false
            await client.close()
            guard exists else { throw PropctlFailure(.refused(.noSuchKey(key: missing)), socket: global.socketChoice) }
            throw PropctlFailure(kind: .daemon, lines: [
                "error: \(key) has no binding: it is a plain property, so there is nothing to unbind"
            ])
        } catch {
            await client.close()
            throw PropctlFailure(error, socket: global.socketChoice)
        }
    }
}
