import ArgumentParser
import PropdClient
import PropdCore

/// `propctl watch PATTERN ... [--since REV] [--replay N] [--no-initial]`
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
            the end of the backlog (key "", the store revision).

            Examples:
              propctl watch 'room.**'
              propctl watch room.temp ui.login.enabled --no-initial
              propctl watch 'sensor.*' --replay 10
              propctl watch '**' --since 1200 --json | jq .
              propctl watch 'a.**' | head -3
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Keys or patterns to watch, e.g. 'room.**'.", valueName: "pattern"))
    var patterns: [String] = []

    @Option(help: ArgumentHelp("Start with every change after this revision instead of current values.", valueName: "rev"))
    var since: Int64?

    @Option(help: ArgumentHelp("Start with the last N values of each key instead of the current one.", valueName: "n"))
    var replay: Int?

    @Flag(name: .customLong("no-initial"), help: "Do not print current values first; only changes.")
    var noInitial = false

    func validate() throws {
        guard !patterns.isEmpty else { throw ValidationError("Missing PATTERN (use '**' for every key).") }
        if let since, since < 0 { throw ValidationError("--since must be a revision.") }
        if let replay, replay < 1 { throw ValidationError("--replay must be at least 1.") }
        if since != nil, replay != nil || noInitial {
            throw ValidationError("--since replaces the initial values: it cannot be combined with --replay or --no-initial.")
        }
        if replay != nil, noInitial { throw ValidationError("--replay and --no-initial cannot be combined.") }
    }

    func run() async throws {
        let client = try await global.connect()
        await client.close()
        OutputEnd.exitWhenInterruptedOrOutputCloses()
        let events = client.observe(
            patterns, since: since.map { Revision($0) }, replay: replay, initial: noInitial ? false : nil)
        var printer = EventPrinter(json: global.json, style: Style.standardOutput,
            showsSynced: StandardStreams.outputIsTerminal)
        do {
            for try await event in events { printer.print(event) }
        } catch {
            throw PropctlFailure(error, socket: global.socketChoice)
        }
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
