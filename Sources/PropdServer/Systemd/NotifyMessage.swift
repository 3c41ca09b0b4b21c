/// The `sd_notify(3)` messages propd sends, as ``SystemdNotifier/send(_:)`` takes them.
///
/// ```swift
/// notifier.send(NotifyMessage.ready(status: ServiceStatus(…).line))
/// notifier.send(NotifyMessage.stopping)
/// ```
public enum NotifyMessage {
    /// Serving: sent once the socket accepts calls (not before).
    public static func ready(status: String) -> String { "READY=1\n" + self.status(status) }
    /// A free-form status line, shown by `systemctl status propd`.
    public static func status(_ text: String) -> String {
        // One line: a newline would start another assignment.
        "STATUS=" + text.map { $0.isNewline ? " " : String($0) }.joined()
    }
    /// Graceful stop has begun (SIGTERM).
    public static let stopping = "STOPPING=1\nSTATUS=stopping"
    /// A SIGHUP reload has begun; send `ready(status:)` again when it is done.
    public static let reloading = "RELOADING=1\nSTATUS=reloading configuration and bindings"
    /// Keep-alive for `WatchdogSec=`.
    public static let watchdog = "WATCHDOG=1"
}

/// The figures of the `STATUS=` line, e.g.
/// `serving /run/propd/propd.sock: 1204 keys, 12 bindings, 3 connections, 5 subscriptions, revision 88123`.
public struct ServiceStatus: Sendable, Hashable {
    public var socket: String
    public var keys: Int
    public var bindings: Int
    public var connections: Int
    public var subscriptions: Int
    public var revision: Int64

    public init(socket: String, keys: Int, bindings: Int, connections: Int, subscriptions: Int, revision: Int64) {
        self.socket = socket
        self.keys = keys
        self.bindings = bindings
        self.connections = connections
        self.subscriptions = subscriptions
        self.revision = revision
    }

    /// The text after `STATUS=`.
    public var line: String {
        "serving \(socket): \(count(keys, "key")), \(count(bindings, "binding")), "
            + "\(count(connections, "connection")), \(count(subscriptions, "subscription")), revision \(revision)"
    }

    private func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
