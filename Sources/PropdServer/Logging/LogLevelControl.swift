public import Logging
import Synchronization

/// The level every ``SyslogLogHandler`` made by the daemon's factory logs at,
/// shared so that a reload changes it for every logger at once.
public final class LogLevelControl: Sendable {
    /// The daemon's: set by ``SyslogLogHandler/factory(environment:level:output:)``.
    public static let shared = LogLevelControl(.info)

    private let raw: Atomic<UInt8>

    public init(_ level: Logger.Level) { raw = Atomic(Self.code(level)) }

    public var level: Logger.Level {
        get { Self.levels[Int(raw.load(ordering: .relaxed))] }
        set { raw.store(Self.code(newValue), ordering: .relaxed) }
    }

    private static let levels = Logger.Level.allCases

    private static func code(_ level: Logger.Level) -> UInt8 {
        UInt8(levels.firstIndex(of: level) ?? 0)
    }
}
