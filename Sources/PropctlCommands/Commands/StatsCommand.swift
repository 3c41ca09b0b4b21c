import ArgumentParser
import PropdClient
import PropdCore

/// `propctl stats`
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show figures of the running daemon.",
        discussion: """
            Revision, number of keys, bindings, subscriptions and connections, uptime and \
            database size. --json prints the daemon's Stats reply.

            Example:
              propctl stats
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let stats = try await global.withClient { client throws(PropdClientError) in try await client.stats() }
        if global.json {
            WireJSON.print(.object(stats.parameters))
            return
        }
        let style = Style.standardOutput
        var table = Table(style: style)
        let rows: [(String, String)] = [
            ("socket", global.socketChoice.path),
            ("revision", String(stats.revision.rawValue)),
            ("keys", String(stats.keys)),
            ("bindings", String(stats.bindings)),
            ("subscriptions", String(stats.subscriptions)),
            ("connections", String(stats.connections)),
            ("uptime", Self.duration(stats.uptimeSeconds)),
            ("database", Self.size(stats.databaseBytes)),
        ]
        for (name, value) in rows { table.append([.init(text: name, paint: style.dim), .init(text: value)]) }
        StandardStreams.out(table.render())
    }

    static func duration(_ seconds: Double) -> String {
        var rest = Int(seconds)
        let days = rest / 86400
        rest %= 86400
        let parts = [(days, "d"), (rest / 3600, "h"), (rest % 3600 / 60, "m"), (rest % 60, "s")]
        let shown = parts.drop { $0.0 == 0 }.map { "\($0.0)\($0.1)" }
        return shown.isEmpty ? "0s" : shown.joined(separator: " ")
    }

    static func size(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
