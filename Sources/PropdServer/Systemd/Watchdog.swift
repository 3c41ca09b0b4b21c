/// The service manager's watchdog (`sd_watchdog_enabled(3)`): when
/// `WATCHDOG_USEC` is set (and `WATCHDOG_PID`, if set, is this process), the
/// daemon must send `WATCHDOG=1` more often than that; propd pings at half
/// the timeout, as systemd recommends.
///
/// ```swift
/// if let watchdog = Watchdog(environment: env, pid: getpid()) {
///     // every watchdog.pingInterval, from the loop that would hang if propd hung:
///     notifier.send(NotifyMessage.watchdog)
/// }
/// ```
public struct Watchdog: Sendable, Hashable {
    /// The timeout the service manager enforces (`WatchdogSec=`).
    public let timeout: Duration

    /// How often to send `WATCHDOG=1`: half the timeout.
    public var pingInterval: Duration { timeout / 2 }

    public init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Nil when the watchdog is off: no or malformed `WATCHDOG_USEC`, zero, or
    /// `WATCHDOG_PID` naming another process.
    public init?(environment: [String: String], pid: Int32) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0,
            microseconds <= UInt64(Int64.max)
        else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let watchdogPID = Int32(pidText), watchdogPID == pid else { return nil }
        }
        self.init(timeout: .microseconds(Int64(microseconds)))
    }
}
