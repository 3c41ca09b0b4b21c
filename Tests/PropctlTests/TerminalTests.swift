import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// `watch` on a real terminal (tmux): lines appear live, coloured, and
/// Ctrl-C ends it with status 0. Skipped, with the reason printed, when
/// tmux is not installed.
@Suite struct TerminalTests {
    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: tmux != nil, "tmux is not installed (apt-get install -y tmux)"))
    func watchIsReadableLive() throws {
        guard let tmux = Self.tmux else { return }
        let daemon = try PropdProcess()
        defer { withExtendedLifetime(daemon) {} }
        _ = try Propctl.run(["set", "room.temp", "21.5", "room.name", "Kitchen"], daemon: daemon)
        let server = daemon.directory + "/tmux.sock"
        let session = TmuxSession(tmux: tmux, server: server)
        defer { session.kill() }
        try session.start(
            // Ctrl-C reaches the shell too: the trap keeps it alive to report.
            command: "trap : INT; \(Propctl.executable) watch 'room.*'; echo \"watch exited $?\"; read line",
            environment: ["PROPD_SOCKET": daemon.socketPath, "TERM": "xterm-256color", "NO_COLOR": ""])

        var screen = try session.waitForScreen("initial values") { $0.contains("-- live from revision 1 --") }
        #expect(screen.contains("      1  room.name     initial  Kitchen"), "\(screen)")
        #expect(screen.contains("      1  room.temp     initial  21.5"), "\(screen)")

        _ = try Propctl.run(["set", "room.temp", "22"], daemon: daemon)
        screen = try session.waitForScreen("a live change") { $0.contains("      2  room.temp     set      22") }

        // Colour on a terminal: the escape sequences are there.
        let coloured = try session.capture(escapes: true)
        #expect(coloured.contains("\u{1B}[32mset"), "\(coloured)")

        try session.sendKeys("C-c")
        screen = try session.waitForScreen("exit") { $0.contains("watch exited") }
        #expect(screen.contains("watch exited 0"), "\(screen)")
    }

    @Test(.enabled(if: tmux != nil, "tmux is not installed (apt-get install -y tmux)"))
    func noColorTurnsColourOff() throws {
        guard let tmux = Self.tmux else { return }
        let daemon = try PropdProcess()
        defer { withExtendedLifetime(daemon) {} }
        _ = try Propctl.run(["set", "room.temp", "21.5"], daemon: daemon)
        let session = TmuxSession(tmux: tmux, server: daemon.directory + "/tmux.sock")
        defer { session.kill() }
        try session.start(
            command: "\(Propctl.executable) list; echo done; read line",
            environment: ["PROPD_SOCKET": daemon.socketPath, "TERM": "xterm-256color", "NO_COLOR": "1"])
        _ = try session.waitForScreen("list") { $0.contains("done") }
        let screen = try session.capture(escapes: true)
        #expect(screen.contains("room.temp  21.5"), "\(screen)")
        #expect(!screen.contains("\u{1B}[1m"), "\(screen)")
    }
}

/// One tmux server and session on a private socket.
final class TmuxSession {
    let tmux: String
    let server: String
    let name = "propctl"
    private var serverPID: Int32?

    init(tmux: String, server: String) {
        self.tmux = tmux
        self.server = server
    }

    func run(_ arguments: [String]) throws -> PropctlResult {
        try Propctl.runProcess(tmux, ["-S", server] + arguments, environment: ProcessInfo.processInfo.environment,
            timeout: .seconds(20))
    }

    func start(command: String, environment: [String: String]) throws {
        var exports = ""
        for (k, v) in environment.sorted(by: { $0.key < $1.key }) { exports += "export \(k)='\(v)'; " }
        // The tmux server outlives this call, and it would inherit every
        // descriptor of the client: our output pipes and the socket through
        // which Foundation's Process notices the child's exit (it would wait
        // for the server to end). Start the client with /dev/null and
        // nothing else open.
        let detach = "import os, sys; fd = os.open(os.devnull, os.O_RDWR); [os.dup2(fd, i) for i in (0, 1, 2)]; "
            + "os.closerange(3, 4096); os.execv(sys.argv[1], sys.argv[1:])"
        let result = try Propctl.runProcess(
            "/usr/bin/python3",
            ["-c", detach, tmux, "-S", server, "-f", "/dev/null", "new-session", "-d",
             "-s", name, "-x", "100", "-y", "20", "/bin/sh", "-c", exports + command],
            environment: ProcessInfo.processInfo.environment, timeout: .seconds(20))
        #expect(result.status == 0, "\(result)")
        serverPID = Int32(try run(["display-message", "-p", "#{pid}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func capture(escapes: Bool = false) throws -> String {
        try run(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", name]).stdout
    }

    func sendKeys(_ keys: String) throws {
        _ = try run(["send-keys", "-t", name, keys])
    }

    /// Captures the pane until `condition` holds (each capture is a process
    /// round trip, which paces the loop), or fails after `timeout`.
    func waitForScreen(_ what: String, timeout: Duration = .seconds(30), until condition: (String) -> Bool) throws
        -> String
    {
        let deadline = ContinuousClock.now + timeout
        var screen = ""
        while ContinuousClock.now < deadline {
            screen = try capture()
            if condition(screen) { return screen }
        }
        throw StreamingProcess.Timeout(waitingFor: what, seen: [screen])
    }

    /// Ends the server (and the session's processes with it).
    func kill() {
        _ = try? run(["kill-server"])
        if let serverPID { Foundation.kill(serverPID, SIGKILL) }
    }
}
