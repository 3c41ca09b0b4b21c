import ArgumentParser
import PropdClient
import PropdCore
#if canImport(Glibc)
import Glibc
#endif

/// `propctl serve CMD... [--parallel N] -- PROGRAM [ARGS...]`
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Handle commands by running a program once per invocation.",
        discussion: """
            Registers as a handler of each CMD and runs PROGRAM for every invocation the \
            daemon hands it: the argument as JSON on stdin (null when none was given), the \
            command's name in $PROPD_COMMAND. Its stdout, without trailing newlines, is the \
            result: JSON when it parses, else the text (empty output is null). A non-zero \
            exit fails the execution with its stderr as the message (CommandFailed).

            Invocations run one at a time unless --parallel N. When the daemon restarts, \
            serve connects again and goes on serving. It ends, with status 0, on Ctrl-C or \
            SIGTERM.

            Examples:
              propctl serve login.submit -- ./check-password.sh
              propctl serve lights.on lights.off -- ./lights.sh
              propctl serve thumbnails.make --parallel 4 -- python3 thumbnail.py
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Invocations run at once.", valueName: "n"))
    var parallel = 1

    @Argument(help: ArgumentHelp("The first command to serve.", valueName: "cmd"))
    var command: String

    // ArgumentParser takes no positional after an array of them, so the
    // rest of the line (more commands, `--`, the program) is split here.
    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("More commands, then -- and the program with its arguments.", valueName: "cmd... -- program"))
    var rest: [String] = []

    /// Every CMD, the program and --parallel, from the words after the first CMD.
    var line: (commands: [String], program: [String], parallel: Int) {
        get throws {
            guard let terminator = rest.firstIndex(of: "--") else {
                throw ValidationError("Missing PROGRAM: give it after --, e.g. -- ./handler.sh")
            }
            var commands = [command]
            var parallel = self.parallel
            var words = rest[..<terminator].makeIterator()
            while let word = words.next() {
                if word == "--parallel" {
                    guard let value = words.next().flatMap({ Int($0) }) else { throw ValidationError("--parallel needs a number.") }
                    parallel = value
                } else if word.hasPrefix("--parallel=") {
                    guard let value = Int(word.dropFirst("--parallel=".count)) else { throw ValidationError("--parallel needs a number.") }
                    parallel = value
                } else if word.hasPrefix("-") {
                    throw ValidationError("Unknown option '\(word)' (options go before CMD, or --parallel N before --).")
                } else {
                    commands.append(word)
                }
            }
            let program = Array(rest[rest.index(after: terminator)...])
            guard !program.isEmpty else { throw ValidationError("Missing PROGRAM after --.") }
            guard parallel >= 1 else { throw ValidationError("--parallel must be at least 1.") }
            return (commands, program, parallel)
        }
    }

    func validate() throws {
        _ = try line
    }

    func run() async throws {
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        let (commands, program, parallel) = try line
        let handler = HandlerProgram(commandLine: program)
        var connected = false
        var delay: Duration = .milliseconds(50)
        while true {
            let client: PropdClient
            do {
                client = try await PropdClient.connect(to: global.socketChoice.path)
            } catch {
                // Only the first connection's failure is final; after that the daemon is restarting.
                if !connected { throw PropctlFailure(error, socket: global.socketChoice) }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(2))
                continue
            }
            connected = true
            delay = .milliseconds(50)
            do throws(PropdClientError) {
                try await client.serve(commands, parallel: parallel) { invocation in
                    try await handler.answer(invocation).get()
                }
            } catch {
                await client.close()
                if !error.isUnreachable { throw PropctlFailure(error, socket: global.socketChoice) }
                StandardStreams.err("propctl: the daemon went away; serving again once it is back\n")
                continue
            }
            await client.close()
        }
    }
}
