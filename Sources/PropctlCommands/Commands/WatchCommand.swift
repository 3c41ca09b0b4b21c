import ArgumentParser
import PropdClient
import PropdCore

/// `propctl watch PATTERN ... [--since REV] [--replay N] [--no-initial] [--exec CMD]`
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the current values of matching keys, then every change, until stopped.",
        discussion: """
            Each line shows the revision, the key, the kind of event (initial, replay, set, \
            delete, error) and the value. When the daemon restarts, watch reconnects and \
            resumes from the last revision it printed: nothing is lost or repeated. It \
            ends, with status 0, on Ctrl-C, SIGTERM, or when its output pipe closes.

            --json prints one JSON line per event, including the 'synced' event that marks \
            the end of the backlog (key "", the store revision). When the connection to \
            the daemon is lost and when it is resumed, a line on stderr says so.

            --exec CMD runs CMD (with /bin/sh -c) once per event instead of printing it, \
            with PROPD_KEY, PROPD_VALUE (JSON; unset for a delete), PROPD_REVISION, \
            PROPD_KIND and, for an error event, PROPD_ERROR in its environment: one at a \
            time, in revision order. To resume after propctl stops, keep the last \
            PROPD_REVISION that CMD handled and start again with --since it.

            Examples:
              propctl watch 'room.**'
              propctl watch room.temp ui.login.enabled --no-initial
              propctl watch 'sensor.*' --replay 10
              propctl watch '**' --since 1200 --json | jq .
              propctl watch 'a.**' | head -3
              propctl watch 'room.*' --no-initial --exec 'echo "$PROPD_KEY is now $PROPD_VALUE"'
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("Keys or patterns to watch, e.g. 'room.**'.", valueName: "pattern"),
        completion: .custom(KeyCompletion.patterns))
    var patterns: [String] = []

    @Option(help: ArgumentHelp("Start with every change after this revision instead of current values.", valueName: "rev"))
    var since: Int64?

    @Option(help: ArgumentHelp("Start with the last N values of each key instead of the current one.", valueName: "n"))
    var replay: Int?

    @Flag(name: .customLong("no-initial"), help: "Do not print current values first; only changes.")
    var noInitial = false

    @Option(name: .customLong("exec"), help: ArgumentHelp(
        "Run this shell command once per event, with the event in PROPD_* variables.", valueName: "cmd"))
    var command: String?

    func validate() throws {
        guard !patterns.isEmpty else { throw ValidationError("Missing PATTERN (use '**' for every key).") }
        if let since, since < 0 { throw ValidationError("--since must be a revision.") }
        if let replay, replay < 1 { throw ValidationError("--replay must be at least 1.") }
        if since != nil, replay != nil || noInitial {
            throw ValidationError("--since replaces the initial values: it cannot be combined with --replay or --no-initial.")
        }
        if replay != nil, noInitial { throw ValidationError("--replay and --no-initial cannot be combined.") }
        if let command, command.isEmpty { throw ValidationError("--exec needs a command.") }
    }

    func run() async throws {
        let client = try await global.connect()
        await client.close()
        OutputEnd.exitWhenInterruptedOrOutputCloses()
        let path = client.socketPath
        let events = client.observe(
            patterns, since: since.map { Revision($0) }, replay: replay, initial: noInitial ? false : nil,
            connectionChanges: { change in
                switch change {
                case .lost(let why):
                    StandardStreams.err("propctl: watch: lost the connection to propd at \(path) (\(why)); reconnecting…\n")
                case .resumed(let after):
                    let position = after.map { "after revision \($0)" } ?? "from the start"
                    StandardStreams.err("propctl: watch: propd is back; resumed \(position), nothing missed\n")
                }
            })
        var printer = EventPrinter(json: global.json, style: Style.standardOutput,
            showsSynced: StandardStreams.outputIsTerminal)
        let runner = command.map { EventCommand(command: $0) }
        do {
            for try await event in events {
                if let runner {
                    guard event.kind != .synced else { continue }
                    let status = try runner.run(for: event)
                    if status != 0 {
                        StandardStreams.err(
                            "propctl: watch: warning: the command exited with status \(status) for \(event.key) at revision \(event.revision)\n")
                    }
                } else {
                    printer.print(event)
                }
            }
        } catch let error as PropdClientError {
            throw await failure(error)
        }
    }

    /// The daemon's refusal in plain words; `--since` beyond the newest
    /// revision gets a sentence saying so and what to do instead.
    private func failure(_ error: PropdClientError) async -> PropctlFailure {
        guard let since, case .other("org.varlink.service.InvalidParameter", let parameters) = error,
            parameters["parameter"] == .string("since")
        else { return PropctlFailure(error, socket: global.socketChoice) }
        var head = "the daemon's newest revision"
        if let client = try? await PropdClient.connect(to: global.socketChoice.path, transport: .blockingSocket) {
            if let figures = try? await client.stats() { head = "the newest revision, \(figures.revision)" }
            await client.close()
        }
        return PropctlFailure(kind: .daemon, lines: [
            "error: --since \(since) is beyond \(head): no change after it exists yet.",
            "hint: --since takes a revision this daemon has committed (propctl stats shows the newest);",
            "      to see only changes from now on, use --no-initial",
        ])
    }
}

/// Prints events as they come, one line each, aligned as far as the keys
/// seen so far allow (a stream cannot know its widest key in advance).
struct EventPrinter {
    var json: Bool
    var style: Style
    var showsSynced: Bool
    private var keyWidth = 12

    init(json: Bool, style: Style, showsSynced: Bool) {
        self.json = json
        self.style = style
        self.showsSynced = showsSynced
    }

    mutating func print(_ event: Event) {
        if json {
            WireJSON.print(WireJSON.event(event))
            return
        }
        if event.kind == .synced {
            if showsSynced { StandardStreams.out(style.dim("-- live from revision \(event.revision) --") + "\n") }
            return
        }
        keyWidth = max(keyWidth, event.key.count)
        let cells = EventLine.cells(event, style: style, withKey: true)
        let widths = [7, keyWidth, 7]
        var line = ""
        for (i, cell) in cells.enumerated() {
            if i == 0 { line += String(repeating: " ", count: max(0, widths[0] - cell.text.count)) }
            line += cell.paint(cell.text)
            if i == 0 { line += "  " } else if i < cells.count - 1 {
                line += String(repeating: " ", count: max(0, widths[i] - cell.text.count) + 2)
            }
        }
        while line.last == " " { line.removeLast() }
        StandardStreams.out(line + "\n")
    }
}
