import Dispatch
import Foundation
import PropdClient
import PropdCore
import Synchronization

/// The PROGRAM of `propctl serve`, run once per invocation: the argument as
/// JSON on its stdin, the command's name in `$PROPD_COMMAND`; its stdout is
/// the result, a non-zero exit an error carrying its stderr.
struct HandlerProgram: Sendable {
    /// PROGRAM and its arguments; PROGRAM is looked up in `$PATH`.
    let commandLine: [String]

    /// What one run printed and how it ended.
    struct Run: Sendable {
        var status: Int32
        var killedBySignal: Bool
        var output: [UInt8]
        var errorOutput: [UInt8]
    }

    /// The invocation's answer: the result, or the failure's message.
    func answer(_ invocation: Invocation) async -> Result<JSONValue?, CommandHandlerFailure> {
        let input = Array((invocation.argument ?? .null).jsonString.utf8) + [UInt8(ascii: "\n")]
        let run: Run
        do {
            run = try await self.run(input: input, command: invocation.command.rawValue)
        } catch {
            return .failure(CommandHandlerFailure("cannot run \(commandLine[0]): \(error)"))
        }
        guard run.status == 0, !run.killedBySignal else {
            let message = Self.text(run.errorOutput)
            if !message.isEmpty { return .failure(CommandHandlerFailure(message)) }
            let how = run.killedBySignal ? "was killed by signal \(run.status)" : "exited with status \(run.status)"
            return .failure(CommandHandlerFailure("\(commandLine[0]) \(how)"))
        }
        return .success(Self.result(run.output))
    }

    /// stdout as a result: JSON when it parses, else its text; nothing is `null`.
    static func result(_ output: [UInt8]) -> JSONValue? {
        if let value = try? JSONValue(parsingUTF8: output) { return value == .null ? nil : value }
        let text = Self.text(output)
        return text.isEmpty ? nil : .string(text)
    }

    /// Text without its trailing newlines, as `$(...)` in a shell takes it.
    static func text(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" || text.last == "\r\n" || text.last == "\r" { text.removeLast() }
        return text
    }

    /// Runs the program to its end on Dispatch threads (blocking reads and
    /// writes of its pipes, none on the cooperative pool).
    func run(input: [UInt8], command: String) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(input: input, command: command) })
            }
        }
    }

    private func runBlocking(input: [UInt8], command: String) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = commandLine
        var environment = ProcessInfo.processInfo.environment
        environment["PROPD_COMMAND"] = command
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()

        // stdin and stderr on their own threads, stdout on this one: a
        // program that writes much before reading all its input cannot
        // block us.
        let errorOutput = Mutex<[UInt8]>([])
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            // A program that exits without reading is EPIPE (SIGPIPE is ignored): fine.
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        DispatchQueue.global().async(group: group) {
            let bytes = [UInt8]((try? stderr.fileHandleForReading.readToEnd()) ?? Data())
            errorOutput.withLock { $0 = bytes }
        }
        let output = [UInt8]((try? stdout.fileHandleForReading.readToEnd()) ?? Data())
        group.wait()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
            output: output, errorOutput: errorOutput.withLock { $0 })
    }
}
