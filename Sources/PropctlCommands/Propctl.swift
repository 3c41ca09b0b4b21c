public import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `propctl`: the command line of propd.
///
/// The executable only calls ``Propctl/runMain()``, which parses, runs the
/// command and maps every outcome to the contract's exit codes.
public struct Propctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "propctl",
        abstract: "Read, write, watch and bind propd's observable properties.",
        discussion: """
            propctl talks to propd over its Unix socket: --socket PATH, else $PROPD_SOCKET, \
            else propd's default socket for this user.

            Examples:
              propctl set room.temp 21.5 name Ada
              propctl get room.temp
              propctl watch 'room.**'
              propctl bind room.fahrenheit 'room.temp.map { $0 * 9 / 5 + 32 }'
              propctl dump > backup.json && propctl load backup.json
              propctl serve login.submit -- ./check-password.sh
              propctl exec login.submit '{"account": "ada", "password": "secret"}'

            Exit codes: 0 success, 1 error from the daemon, 2 usage error, \
            3 daemon unreachable, 4 a derived key read (get) is in an evaluation error.
            """,
        version: "0.1.0",
        subcommands: [
            SetCommand.self, GetCommand.self, DelCommand.self, ListCommand.self, WatchCommand.self,
            HistoryCommand.self, BindCommand.self, UnbindCommand.self, BindingsCommand.self,
            GraphCommand.self, StatsCommand.self, DumpCommand.self, LoadCommand.self,
            ReloadCommand.self, ExecCommand.self, ServeCommand.self,
        ])

    // Declared here too so that `propctl --json list` parses; each command
    // reads the same values through its own @OptionGroup.
    @OptionGroup var global: GlobalOptions

    public init() {}

    /// Parses the command line, runs the command and exits with the
    /// contract's code: 0 ok, 1 daemon error, 2 usage error, 3 unreachable.
    public static func runMain(arguments: [String]? = nil) async -> Never {
        StandardStreams.ignoreBrokenPipeSignal()
        let command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot(arguments)
        } catch {
            exitForParseFailure(error)
        }
        do {
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
            Glibc.exit(0)
        } catch let failure as PropctlFailure {
            StandardStreams.err(failure.lines.map { "propctl: " + $0 }.joined(separator: "\n") + "\n")
            Glibc.exit(failure.kind.exitCode)
        } catch {
            exitForParseFailure(error)
        }
    }

    /// ArgumentParser's own outcomes: help and version (0, on stdout) and
    /// usage errors, whose EX_USAGE (64) the contract wants as 2.
    private static func exitForParseFailure(_ error: any Error) -> Never {
        let code = exitCode(for: error).rawValue
        let message = fullMessage(for: error)
        if code == 0 {
            if !message.isEmpty { StandardStreams.out(message + "\n") }
            Glibc.exit(0)
        }
        if !message.isEmpty { StandardStreams.err(message + "\n") }
        Glibc.exit(code == 64 ? 2 : code)
    }
}
