import Dispatch
import Foundation
import PropdCore
import PropdTestSupport
import Synchronization
import Testing

/// `propctl exec` and `propctl serve` against a real daemon: a shell
/// script as the handler, one invocation at a time unless --parallel, and
/// a serve process killed mid-execution.
///
/// Serialized: each test blocks its thread while it waits for processes, and
/// several at once would hold every thread of the cooperative pool (two on
/// this machine), starving the other suites' tasks.
@Suite(.serialized) struct ExecServeTests {
    let daemon: PropdProcess
    let scripts: TemporaryFile

    /// The handler: echoes its command and argument as JSON; "text" prints
    /// words, "fail" exits 3 with a message; "gate-X" waits for the test to
    /// open the FIFO `gate-X` next to it, logging its start and end.
    static let handler = #"""
        #!/bin/sh
        dir=$(dirname "$0")
        input=$(cat)
        case "$input" in
          *fail*) echo "refused: $input" >&2; exit 3 ;;
          *text*) echo "plain words"; exit 0 ;;
          *gate-*)
            gate=$(printf '%s' "$input" | tr -d '"')
            echo "start $gate" >> "$dir/log"
            read line < "$dir/$gate"
            echo "end $gate" >> "$dir/log"
            echo '"released"'
            exit 0 ;;
        esac
        printf '{"command": "%s", "input": %s}\n' "$PROPD_COMMAND" "$input"
        """#

    init() throws {
        daemon = try PropdProcess()
        scripts = try TemporaryFile(named: "handler.sh", text: Self.handler)
        chmod(scripts.path, 0o755)
        for gate in ["gate-a", "gate-b"] { mkfifo(scripts.directory + "/" + gate, 0o600) }
    }

    /// Starts `propctl serve` and returns once the daemon has its handler:
    /// the first Serve of a command creates CMD.executing (watched here).
    func serve(_ commands: [String], _ options: [String] = []) throws -> StreamingProcess {
        let watch = try StreamingProcess(["--json", "watch", "\(commands[0]).executing"], socket: daemon.socketPath)
        try watch.waitForLines("synced") { $0.contains { $0.contains(#""synced""#) } }
        let serve = try StreamingProcess(["serve"] + commands + options + ["--", scripts.path], socket: daemon.socketPath)
        try watch.waitForLines("the keys of \(commands[0])") { $0.contains { $0.contains(#""kind":"set""#) } }
        _ = try watch.stop()
        return serve
    }

    @Test func execPrintsTheResultOfTheServingProgram() throws {
        let serve = try serve(["job.echo"])
        let json = try Propctl.run(["exec", "job.echo", #"{"n": 1}"#], daemon: daemon)
        #expect(json.status == 0, "\(json)")
        #expect(try JSONValue(parsing: json.stdout) == ["command": "job.echo", "input": ["n": 1]])
        // No argument: the program reads null.
        let none = try Propctl.run(["--json", "exec", "job.echo"], daemon: daemon)
        #expect(try none.json["result"] == ["command": "job.echo", "input": .null], "\(none)")
        #expect(try none.json["revision"] != nil)
        // Output that is not JSON is the text, without its newline.
        let text = try Propctl.run(["exec", "job.echo", "text"], daemon: daemon)
        #expect(text.stdout == "plain words\n", "\(text)")
        #expect(try Propctl.run(["--json", "exec", "job.echo", "text"], daemon: daemon).json["result"] == "plain words")
        // A non-zero exit is the error, with the program's stderr.
        let failed = try Propctl.run(["exec", "job.echo", "fail"], daemon: daemon)
        #expect(failed.status == 1, "\(failed)")
        #expect(failed.stderr.contains("io.propd.CommandFailed"), "\(failed)")
        #expect(failed.stderr.contains(#"refused: "fail""#), "\(failed)")
        #expect(try Propctl.run(["get", "job.echo.error"], daemon: daemon).stdout == "refused: \"fail\"\n")
        #expect(try serve.stop(with: SIGTERM) == 0)
    }

    @Test func execRefusesBadInputAndReportsDaemonErrors() throws {
        for bad in [["exec"], ["exec", "a", "--timeout", "10"], ["exec", "a", "--timeout", "0s"], ["exec", "a", "--timeout", "x1s"]] {
            let result = try Propctl.run(bad, daemon: daemon)
            #expect(result.status == 2, "\(bad): \(result)")
        }
        let none = try Propctl.run(["exec", "nobody.serves", "--timeout", "5s"], daemon: daemon)
        #expect(none.status == 1)
        #expect(none.stderr.contains("io.propd.NoHandler"), "\(none)")
        for bad in [["serve", "a"], ["serve", "--", "prog"], ["serve", "a", "--parallel", "0", "--", "prog"]] {
            #expect(try Propctl.run(bad, daemon: daemon).status == 2, "\(bad)")
        }
        let invalid = try Propctl.run(["serve", "bad..name", "--", scripts.path], daemon: daemon)
        #expect(invalid.status == 1, "\(invalid)")
        #expect(invalid.stderr.contains("io.propd.InvalidKey"), "\(invalid)")
    }

    @Test func invocationsRunOneAtATimeByDefault() throws {
        let serve = try serve(["job.a", "job.b"])
        let a = Background(["exec", "job.a", "gate-a"], daemon)
        let b = Background(["exec", "job.b", "gate-b"], daemon)
        try waitUntilExecuting(["job.a", "job.b"])
        // Both were handed to the one serve process; it runs them in turn,
        // in the order the daemon started them (either).
        try release(["gate-a", "gate-b"])
        #expect(try a.wait().stdout == "released\n")
        #expect(try b.wait().stdout == "released\n")
        let log = try String(contentsOfFile: scripts.directory + "/log", encoding: .utf8).split(separator: "\n")
        #expect(log == ["start gate-a", "end gate-a", "start gate-b", "end gate-b"] || log == ["start gate-b", "end gate-b", "start gate-a", "end gate-a"], "\(log)")
        #expect(try serve.stop(with: SIGTERM) == 0)
    }

    @Test func parallelRunsSeveralAtOnce() throws {
        let serve = try serve(["job.a", "job.b"], ["--parallel", "2"])
        let a = Background(["exec", "job.a", "gate-a"], daemon)
        let b = Background(["exec", "job.b", "gate-b"], daemon)
        // b's program is released while a's still waits: they ran at once.
        try release(["gate-b"])
        #expect(try b.wait().stdout == "released\n")
        try release(["gate-a"])
        #expect(try a.wait().stdout == "released\n")
        #expect(try serve.stop(with: SIGTERM) == 0)
    }

    @Test func aServeProcessKilledMidExecutionFailsItWithNoHandler() throws {
        let serve = try serve(["job.a"])
        let a = Background(["exec", "job.a", "gate-a"], daemon)
        try waitUntilExecuting(["job.a"])
        #expect(try serve.stop(with: SIGKILL) == 128 + SIGKILL)
        let result = try a.wait()
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("io.propd.NoHandler"), "\(result)")
        #expect(try Propctl.run(["get", "job.a.executing"], daemon: daemon).stdout == "false\n")
        // Frees the orphaned program, which still waits on its gate.
        let fd = open(scripts.directory + "/gate-a", O_RDWR)
        if fd >= 0 { close(fd) }
    }

    /// Waits (on a watch) until every command's `executing` is true.
    func waitUntilExecuting(_ commands: [String]) throws {
        let watch = try StreamingProcess(["--json", "watch"] + commands.map { "\($0).executing" }, socket: daemon.socketPath)
        defer { _ = try? watch.stop() }
        try watch.waitForLines("executing") { lines in
            var current: [String: Bool] = [:]
            for line in lines {
                guard let event = try? JSONValue(parsing: line), case .string(let key)? = event["key"] else { continue }
                current[key] = event["value"] == true
            }
            return commands.allSatisfy { current["\($0).executing"] == true }
        }
    }

    /// Opens each gate's FIFO for writing, which waits until its program
    /// reads it, then closes it: the program's `read` returns. The gates are
    /// opened at once, so their programs may come in any order.
    func release(_ gates: [String]) throws {
        let opened = DispatchSemaphore(value: 0)
        for gate in gates {
            let path = scripts.directory + "/" + gate
            DispatchQueue.global().async {
                let fd = open(path, O_WRONLY)
                if fd >= 0 { close(fd) }
                opened.signal()
            }
        }
        for gate in gates where opened.wait(timeout: .now() + 30) == .timedOut {
            throw ProcessTimeout(command: "the program reading \(gate)")
        }
    }
}

/// A propctl run in the background, awaited later.
final class Background: Sendable {
    private let result = Mutex<Result<PropctlResult, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ arguments: [String], _ daemon: PropdProcess) {
        let socket = daemon.socketPath
        DispatchQueue.global().async { [self] in
            let outcome = Result { try Propctl.run(arguments, socket: socket, timeout: .seconds(60)) }
            result.withLock { $0 = outcome }
            done.signal()
        }
    }

    func wait() throws -> PropctlResult {
        if done.wait(timeout: .now() + 90) == .timedOut { throw ProcessTimeout(command: "propctl in the background") }
        guard let outcome = result.withLock({ $0 }) else { throw ProcessTimeout(command: "propctl in the background") }
        return try outcome.get()
    }
}
