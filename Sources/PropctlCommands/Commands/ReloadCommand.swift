import ArgumentParser
import PropdClient
import PropdCore

/// `propctl reload`
struct ReloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make propd read its configuration and binding files again (what SIGHUP does).",
        discussion: """
            Prints the revision after the reload, then each error as FILE:LINE:COLUMN: \\
            message on stderr; a file with an error changes nothing. Settings that need a \\
            restart are listed too. Exits with status 1 when there is any error, so \\
            `systemctl reload propd` (whose ExecReload= runs this) fails on a broken file.

            Examples:
              propctl reload
              propctl --json reload
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let reply = try await global.withClient { client throws(PropdClientError) in try await client.reload() }
        if global.json {
            WireJSON.print(.object(reply.parameters))
        } else {
            StandardStreams.out("\(reply.revision)\n")
            for setting in reply.applied { StandardStreams.out("applied: \(TerminalText.escaped(setting))\n") }
            for setting in reply.refused {
                StandardStreams.err("propctl: warning: needs a restart of propd: \(TerminalText.escaped(setting))\n")
            }
        }
        guard !reply.errors.isEmpty else { return }
        throw PropctlFailure(kind: .daemon, lines: reply.errors.map { "error: " + TerminalText.escaped($0) }
            + ["\(reply.errors.count) error(s): the files with errors changed nothing"])
    }
}
