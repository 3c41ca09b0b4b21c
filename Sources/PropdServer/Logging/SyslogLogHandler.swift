#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Logging

/// A swift-log handler writing one line per message with the `sd-daemon(3)`
/// priority prefix, so journald files each line at its level:
///
/// ```
/// <6>propd: serving socket=/run/propd/propd.sock keys=1204
/// ```
/// Outside journald each line also carries a UTC timestamp and the level name:
/// `<4>2026-11-23T00:41:25.120Z warning propd: …`.
///
/// ```swift
/// LoggingSystem.bootstrap(SyslogLogHandler.factory(environment: env, level: config.logLevel))
/// ```
/// Metadata is printed as `key=value`, sorted by key; values with spaces,
/// quotes, `=` or control characters are quoted. Newlines in a message are
/// written as `\n`, so one message is always one line.
public struct SyslogLogHandler: LogHandler {
    /// The level set on this handler, else the shared one (``LogLevelControl``).
    public var logLevel: Logger.Level {
        get { ownLevel ?? control?.level ?? .info }
        set { ownLevel = newValue }
    }
    private var ownLevel: Logger.Level?
    /// Where the level comes from while none is set on this handler.
    private var control: LogLevelControl?
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public let label: String
    /// Whether lines carry a timestamp (false under journald, which stamps them itself).
    public let timestamps: Bool
    let output: any LogOutput
    let clock: @Sendable () -> (seconds: Int, nanoseconds: Int)

    public init(
        label: String, level: Logger.Level = .info, timestamps: Bool, output: any LogOutput = StandardErrorOutput(),
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.init(label: label, level: level, timestamps: timestamps, output: output, metadataProvider: metadataProvider, clock: Self.realtime)
    }

    init(
        label: String, level: Logger.Level, timestamps: Bool, output: any LogOutput,
        metadataProvider: Logger.MetadataProvider?, control: LogLevelControl
    ) {
        self.init(label: label, level: level, timestamps: timestamps, output: output, metadataProvider: metadataProvider, clock: Self.realtime)
        self.ownLevel = nil
        self.control = control
    }

    init(
        label: String, level: Logger.Level, timestamps: Bool, output: any LogOutput,
        metadataProvider: Logger.MetadataProvider?, clock: @escaping @Sendable () -> (seconds: Int, nanoseconds: Int)
    ) {
        self.label = label
        self.ownLevel = level
        self.control = nil
        self.timestamps = timestamps
        self.output = output
        self.metadataProvider = metadataProvider
        self.clock = clock
    }

    /// A factory for `LoggingSystem.bootstrap`: timestamps only when stderr is
    /// not journald's stream.
    public static func factory(
        environment: [String: String], level: Logger.Level, output: any LogOutput = StandardErrorOutput()
    ) -> @Sendable (String, Logger.MetadataProvider?) -> any LogHandler {
        let timestamps = !JournalStream.isStandardErrorJournal(environment: environment)
        LogLevelControl.shared.level = level
        return { label, provider in
            SyslogLogHandler(
                label: label, level: level, timestamps: timestamps, output: output, metadataProvider: provider,
                control: LogLevelControl.shared)
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        if let error = event.error { merged["error"] = .string(String(describing: error)) }
        output.write(line: format(level: event.level, message: event.message.description, metadata: merged))
    }

    /// The whole line, newline included.
    func format(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = "<\(Self.priority(of: level))>"
        if timestamps {
            let now = clock()
            line += Self.timestamp(seconds: now.seconds, nanoseconds: now.nanoseconds) + " " + level.rawValue + " "
        }
        line += label + ": " + LogText.singleLine(message)
        for key in metadata.keys.sorted() {
            guard let value = metadata[key] else { continue }
            line += " " + LogText.field(key) + "=" + LogText.field(LogText.render(value))
        }
        return line + "\n"
    }

    /// The syslog priority of a level: critical 2, error 3, warning 4, notice 5,
    /// info 6, debug and trace 7.
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .critical: return 2
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug, .trace: return 7
        }
    }

    /// `2026-11-23T00:41:25.120Z` (UTC, milliseconds).
    static func timestamp(seconds: Int, nanoseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(nanoseconds / 1_000_000), 3))Z"
    }

    @Sendable static func realtime() -> (seconds: Int, nanoseconds: Int) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return (Int(now.tv_sec), Int(now.tv_nsec))
    }
}
