import ArgumentParser
import PropdClient
import PropdCore

/// `propctl exec CMD [ARGUMENT] [--timeout 10s]`
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Execute a command and print its result.",
        discussion: """
            Runs CMD on one of its handlers (see `propctl serve`) and waits for the answer. \
            ARGUMENT follows the rules of set's VALUE: JSON when it parses as JSON, text that \
            looks like JSON but does not parse is refused, anything else is the text itself; \
            - reads it from stdin, @FILE from a file. Without it the handler gets null. While it runs, CMD.executing is true; at the \
            end CMD.error holds the error, or null.

            Prints the result as `get` prints a value: a string as its raw text, anything \
            else as JSON, nothing for null. --json prints {"result": ..., "revision": N}. \
            When the command fails (CommandFailed, CommandTimeout, NoHandler, \
            CommandDisabled, CommandBusy) the error goes to stderr and the exit status is 1.

            Examples:
              propctl exec login.submit '{"account": "ada", "password": "secret"}'
              propctl exec backup.run --timeout 10m
              propctl --json exec lights.toggle
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The command's name (a key).", valueName: "cmd"))
    var command: String

    @Argument(help: ArgumentHelp("The argument handed to the handler.", valueName: "argument"))
    var argument: String?

    @Option(help: ArgumentHelp(
        "How long the handler may take: 500ms, 10s, 2m, 1h (default: the daemon's, 30s).", valueName: "duration"))
    var timeout: String?

    @Flag(help: "Send ARGUMENT as a string, even when it looks like JSON.")
    var string = false

    func validate() throws {
        if let timeout {
            guard let milliseconds = DurationArgument.milliseconds(timeout), milliseconds >= 1,
                milliseconds <= Int64(1) << 31
            else {
                throw ValidationError("--timeout takes a duration with its unit, 1ms to 596h: 500ms, 10s, 2m, 1h.")
            }
        }
    }

    func run() async throws {
        var reader = ValueArgument(mode: string ? .string : .inferred)
        let value = try argument.map { (text) throws(PropctlFailure) in try reader.value(of: text, for: "\(command)'s argument") }
        let limit = timeout.flatMap(DurationArgument.milliseconds).map { Duration.milliseconds($0) }
        let answer = try await global.withClient { client throws(PropdClientError) in
            try await client.execute(command, argument: value, timeout: limit)
        }
        if global.json {
            WireJSON.print(.object(answer.parameters))
        } else if let result = answer.result {
            StandardStreams.out(ValueArgument.display(result) + "\n")
        }
    }
}
