import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// The generated completion scripts complete keys and patterns from the
/// running daemon. bash runs the script for real (as a shell does on Tab);
/// zsh and fish scripts are checked to call back into propctl the same way.
@Suite struct CompletionTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    /// What bash offers after `line` (the cursor at its end).
    func bashCompletions(_ line: String) throws -> [String] {
        let script = daemon.directory + "/propctl.bash"
        let generated = try Propctl.run(["--generate-completion-script", "bash"], daemon: daemon)
        try generated.stdout.write(toFile: script, atomically: true, encoding: .utf8)
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }.joined(separator: " ")
        let driver = """
            source '\(script)'
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            COMP_WORDS=(\(words)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            _propctl propctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var environment = ProcessInfo.processInfo.environment
        environment["PROPD_SOCKET"] = daemon.socketPath
        environment["PATH"] = PropdProcess.productsDirectory.path + ":/usr/bin:/bin"
        let result = try Propctl.runProcess("/bin/bash", ["-c", driver], environment: environment)
        #expect(result.status == 0, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test func bashCompletesKeysAndPatternsFromTheDaemon() throws {
        _ = try Propctl.run(["set", "room.temp", "1", "room.name", "x", "roof.x", "2", "other", "3"], daemon: daemon)
        #expect(try bashCompletions("propctl get roo") == ["roof.x", "room.name", "room.temp"])
        #expect(try bashCompletions("propctl get room.t") == ["room.temp"])
        #expect(try bashCompletions("propctl watch room.") == ["room.*", "room.**", "room.name", "room.temp"])
        #expect(try bashCompletions("propctl del --pattern ro") == ["roof.*", "roof.**", "roof.x", "room.*", "room.**", "room.name", "room.temp"])
        // No daemon: nothing offered, and no error text in the way.
        daemon.kill()
        #expect(try bashCompletions("propctl get roo") == [])
    }

    @Test func zshAndFishCallBackForKeys() throws {
        for shell in ["zsh", "fish"] {
            let script = try Propctl.run(["--generate-completion-script", shell], daemon: daemon).stdout
            #expect(script.contains("---completion get --"), "\(shell)")
            #expect(script.contains("---completion watch --"), "\(shell)")
        }
    }
}
