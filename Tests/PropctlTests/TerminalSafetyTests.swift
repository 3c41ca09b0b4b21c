import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// What a person sees on a terminal (tmux): a value full of control
/// characters cannot colour, move or clear the reader's screen, and `watch`
/// says when the daemon went away and when it came back.
@Suite struct TerminalSafetyTests {
    /// ESC [31m (red), ESC [2J (clear screen), ESC ]0;title BEL, DEL, a C1 CSI (U+009B), a newline.
    static let hostile = "a\u{1B}[31mRED\u{1B}[2J\u{1B}]0;pwned\u{07}\u{7F}\u{9B}1m\nforged.key  99"

    @Test(.enabled(if: TerminalTests.tmux != nil, "tmux is not installed (apt-get install -y tmux)"))
    func controlCharactersAreShownEscaped() throws {
        guard let tmux = TerminalTests.tmux else { return }
        let daemon = try PropdProcess()
        defer { withExtendedLifetime(daemon) {} }
        #expect(try Propctl.run(["set", "evil", Self.hostile, "--string"], daemon: daemon).status == 0)
        let session = TmuxSession(tmux: tmux, server: daemon.directory + "/tmux.sock")
        defer { session.kill() }
        let propctl = Propctl.executable
        try session.start(
            command: "\(propctl) get evil; \(propctl) list; \(propctl) history evil; echo done; read line",
            environment: ["PROPD_SOCKET": daemon.socketPath, "TERM": "xterm-256color", "NO_COLOR": "1"])
        let screen = try session.waitForScreen("the value printed three ways") { $0.contains("done") }
        // Each way shows the escapes as text, on one line, with the words after them intact.
        let escaped = #"\u001b[31mRED\u001b[2J\u001b]0;pwned\u0007\u007f\u009b1m"#
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(escaped) }.count == 3, "\(screen)")
        // The screen was not cleared, nothing is red, no forged row.
        #expect(screen.contains("evil"), "\(screen)")
        #expect(!lines.contains { $0.hasPrefix("forged.key") }, "\(screen)")
        let painted = try session.capture(escapes: true)
        #expect(!painted.contains("\u{1B}[31m"), "\(painted)")
        let title = try session.run(["display-message", "-p", "#{pane_title}"]).stdout
        #expect(!title.contains("pwned"), "\(title)")
    }

    @Test(.enabled(if: TerminalTests.tmux != nil, "tmux is not installed (apt-get install -y tmux)"))
    func watchEscapesLiveValues() throws {
        guard let tmux = TerminalTests.tmux else { return }
        let daemon = try PropdProcess()
        defer { withExtendedLifetime(daemon) {} }
        let session = try watchRoom(in: tmux, daemon, after: ["room.name", "Kitchen"])
        defer { session.kill() }
        #expect(try Propctl.run(["set", "room.name", Self.hostile, "--string"], daemon: daemon).status == 0)
        let screen = try session.waitForScreen("the live change") { $0.contains("      2  room.name") }
        #expect(screen.contains(#"set      "a\u001b[31mRED\u001b[2J"#), "\(screen)")
        #expect(screen.contains("Kitchen"), "the screen was cleared: \(screen)")
        #expect(!(try session.capture(escapes: true)).contains("\u{1B}[31m"))
    }

    @Test(.enabled(if: TerminalTests.tmux != nil, "tmux is not installed (apt-get install -y tmux)"))
    func watchSaysWhenTheDaemonIsGoneAndWhenItIsBack() throws {
        guard let tmux = TerminalTests.tmux else { return }
        let daemon = try PropdProcess()
        defer { withExtendedLifetime(daemon) {} }
        let session = try watchRoom(in: tmux, daemon, after: ["room.temp", "21"])
        defer { session.kill() }

        #expect(daemon.stop() == 0)
        var screen = try session.waitForScreen("the lost connection") { $0.contains("lost the connection to propd") }
        #expect(screen.contains("reconnecting"), "\(screen)")

        try daemon.restart()
        screen = try session.waitForScreen("the resumption") { $0.contains("propd is back") }
        #expect(screen.contains("resumed after revision 1, nothing missed"), "\(screen)")
        _ = try Propctl.run(["set", "room.temp", "22"], daemon: daemon)
        screen = try session.waitForScreen("a change after the restart") { $0.contains("      2  room.temp     set      22") }
    }

    /// Sets one key (revision 1), then runs `propctl watch 'room.*'` in a
    /// tmux pane until its initial values are on the screen.
    private func watchRoom(in tmux: String, _ daemon: PropdProcess, after set: [String]) throws -> TmuxSession {
        _ = try Propctl.run(["set"] + set, daemon: daemon)
        let session = TmuxSession(tmux: tmux, server: daemon.directory + "/tmux.sock")
        try session.start(
            command: "\(Propctl.executable) watch 'room.*'; read line",
            environment: ["PROPD_SOCKET": daemon.socketPath, "TERM": "xterm-256color", "NO_COLOR": "1"])
        do {
            _ = try session.waitForScreen("initial values") { $0.contains("-- live from revision 1 --") }
        } catch {
            session.kill()
            throw error
        }
        return session
    }
}
