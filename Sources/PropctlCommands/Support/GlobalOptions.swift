import ArgumentParser
import PropdClient
import PropdCore

/// The options every command takes: where the daemon is, and whether to
/// print machine output.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket (default: $PROPD_SOCKET, else propd's default socket for this user).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    @Flag(name: .long, help: "Machine output: one JSON document (for watch, one JSON line per event).")
    var json = false

    var socketChoice: SocketChoice { SocketChoice(flag: socket) }

    /// Connects, turning failure into exit code 3 with a hint.
    func connect() async throws(PropctlFailure) -> PropdClient {
        let choice = socketChoice
        do {
            // One-shot commands: a blocking socket, no event loop to start.
            return try await PropdClient.connect(to: choice.path, transport: .blockingSocket)
        } catch {
            throw PropctlFailure(error, socket: choice)
        }
    }

    /// Runs `body` on a connected client; daemon errors become exit 1 (or 3).
    func withClient<T>(_ body: (PropdClient) async throws(PropdClientError) -> T) async throws(PropctlFailure) -> T {
        let client = try await connect()
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw PropctlFailure(error, socket: socketChoice)
        }
    }

    /// Prints the revision a write became: `{"revision": N}` with `--json`,
    /// else the bare number (what set, del and unbind answer).
    func printRevision(_ revision: Revision) {
        if json {
            WireJSON.print(WireJSON.revision(revision))
        } else {
            StandardStreams.out("\(revision)\n")
        }
    }
}
