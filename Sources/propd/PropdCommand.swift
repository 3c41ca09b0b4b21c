public import ArgumentParser
import Foundation
import Logging
public import PropdServer

/// `propd`: the daemon. Flags override the config file, which overrides the
/// embedded defaults.
@main
struct PropdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "propd",
        abstract: "The reactive property daemon.",
        discussion: """
            With no flags and no config, propd runs as an ordinary user on embedded defaults:
            socket $XDG_RUNTIME_DIR/propd/propd.sock (or /tmp/propd-$UID/propd.sock), database
            $XDG_STATE_HOME/propd/propd.db, bindings $XDG_CONFIG_HOME/propd/bindings.d. As root it uses
            /run/propd/propd.sock, /var/lib/propd/propd.db, /etc/propd/propd.conf and /etc/propd/bindings.d.
            PROPD_SOCKET overrides the default socket. Under systemd it adopts a socket passed with
            LISTEN_FDS and reports READY=1, STATUS=, STOPPING=1 and WATCHDOG=1.
            SIGTERM stops gracefully; SIGHUP (or `propctl reload`) reloads the config and the binding files.

            --check validates the config file and the binding files (*.prop) and exits without
            starting: status 0 when both are valid, else 1 with each error as FILE:LINE:COLUMN: message.
            Bindings declared by clients (in the database) are not part of the check.
            """)

    @Option(help: "The Unix socket to listen on.")
    var socket: String?

    @Option(help: "The SQLite database file.")
    var database: String?

    @Option(help: "The directory of binding files (*.prop).")
    var bindings: String?

    @Option(help: "The config file (YAML).")
    var config: String?

    @Option(help: "full (survives power loss; default) or normal (survives a crash of propd).")
    var durability: Durability?

    @Option(help: "History keeps at least this many values per key (default 100).")
    var historyPerKey: Int?

    @Option(help: "Cluster mode: the etcd members' client URLs, comma-separated; the space lives in etcd, not SQLite.")
    var etcd: String?

    @Option(help: "Where the space lives in etcd (default /propd/default); nodes on one prefix share one space.")
    var etcdPrefix: String?

    @Option(help: "Cluster mode: the seconds a dead node keeps the timer election and its command handlers (default 5).")
    var etcdLease: Int?

    @Flag(help: "Validate the config file and the binding files, then exit (0: valid, 1: errors).")
    var check = false

    func run() async throws {
        MemoryTuning.applyForDaemon()
        let environment = ProcessInfo.processInfo.environment
        let flags = DaemonFlags(
            socket: socket, database: database, bindings: bindings, config: config, durability: durability,
            historyPerKey: historyPerKey, etcd: etcd, etcdPrefix: etcdPrefix,
            etcdLease: etcdLease)
        if check {
            let (checked, errors) = ConfigurationCheck.run(environment: environment, uid: getuid(), flags: flags)
            for warning in checked.warnings { FileHandle.standardError.write(Data("propd: warning: \(warning)\n".utf8)) }
            for error in errors { FileHandle.standardError.write(Data("propd: \(error)\n".utf8)) }
            guard errors.isEmpty else { throw ExitCode(1) }
            let config = checked.configFile ?? "no config file (defaults)"
            let directory = checked.bindingsDirectory ?? "-"
            print("propd: valid: \(config); \(checked.bindings) binding(s) in \(directory)")
            return
        }
        let configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration.load(environment: environment, uid: getuid(), flags: flags)
        } catch {
            FileHandle.standardError.write(Data("<3>propd: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        LoggingSystem.bootstrap(SyslogLogHandler.factory(environment: environment, level: configuration.logLevel), metadataProvider: nil)
        let logger = Logger(label: "propd")
        let daemon: StartedDaemon
        do {
            daemon = try await Daemon.start(
                configuration: configuration, flags: flags, environment: environment, logger: logger)
        } catch {
            logger.critical("propd cannot start", metadata: ["reason": "\(error.description)"])
            throw ExitCode(1)
        }
        try await daemon.run()
    }
}

extension Durability: ExpressibleByArgument {}
