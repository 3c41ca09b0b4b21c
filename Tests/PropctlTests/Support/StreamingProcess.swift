import Foundation
import PropdTestSupport
import Synchronization

/// A long-running `propctl` (watch) whose output lines the test waits for,
/// with a timeout, as they arrive.
final class StreamingProcess: Sendable {
    struct Timeout: Error, CustomStringConvertible {
        var waitingFor: String
        var seen: [String]
        var description: String { "timed out waiting for \(waitingFor); saw:\n" + seen.joined(separator: "\n") }
    }

    /// The output so far, shared with the pipe's reading handler.
    final class Output: Sendable {
        let state = Mutex<(lines: [String], partial: String, ended: Bool)>(([], "", false))
        let changed = DispatchSemaphore(value: 0)
    }

    private let process: Process
    private let output = Output()

    /// - Parameter captureStandardError: read stderr's lines too (mixed with stdout's).
    init(
        _ arguments: [String], socket: String, environment extra: [String: String] = [:],
        captureStandardError: Bool = false
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Propctl.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PROPD_SOCKET"] = socket
        for (k, v) in extra { environment[k] = v }
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = captureStandardError ? out : FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        self.process = process
        let reader = out.fileHandleForReading
        reader.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.state.withLock { s in
                if data.isEmpty {
                    s.ended = true
                    handle.readabilityHandler = nil
                } else {
                    s.partial += String(decoding: data, as: UTF8.self)
                    while let newline = s.partial.firstIndex(of: "\n") {
                        s.lines.append(String(s.partial[..<newline]))
                        s.partial = String(s.partial[s.partial.index(after: newline)...])
                    }
                }
            }
            output.changed.signal()
        }
        try ProcessLaunch.run(process)
    }

    var lines: [String] { output.state.withLock { $0.lines } }

    /// Waits until the lines seen so far satisfy `condition`; returns them.
    @discardableResult
    func waitForLines(_ what: String, timeout: Duration = .seconds(30), until condition: ([String]) -> Bool) throws
        -> [String]
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (lines, ended) = output.state.withLock { ($0.lines, $0.ended) }
            if condition(lines) { return lines }
            let remaining = deadline - ContinuousClock.now
            if ended || remaining <= .zero { throw Timeout(waitingFor: what, seen: lines) }
            // Wakes on every chunk of output (the event waited for), or at the deadline.
            _ = output.changed.wait(timeout: .now() + Double(remaining.components.seconds) + 0.01)
        }
    }

    /// Sends `signal` and waits for the exit; returns the status (128 + the
    /// signal when one ended it, as a shell reports it).
    func stop(with signal: Int32 = SIGINT, timeout: Duration = .seconds(30)) throws -> Int32 {
        kill(process.processIdentifier, signal)
        return try waitForExit(timeout: timeout)
    }

    func waitForExit(timeout: Duration = .seconds(30)) throws -> Int32 {
        guard let status = ChildExit.wait(process, timeout: timeout) else {
            process.terminate()
            throw Timeout(waitingFor: "exit", seen: lines)
        }
        return status
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
