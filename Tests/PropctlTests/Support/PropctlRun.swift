import PropdTestSupport
import Foundation
import PropdCore
import Synchronization

/// What one run of the real `propctl` printed and how it ended.
struct PropctlResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "status \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }

    /// stdout parsed as one JSON document.
    var json: JSONValue {
        get throws { try JSONValue(parsing: stdout) }
    }

    /// stdout's lines, each parsed as JSON (watch --json).
    var jsonLines: [JSONValue] {
        get throws { try stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) } }
    }
}

struct ProcessTimeout: Error, CustomStringConvertible {
    var command: String
    var description: String { "\(command) did not exit in time" }
}

/// Runs the `propctl` built next to the test binary.
enum Propctl {
    static var executable: String {
        PropdProcess.productsDirectory.appendingPathComponent("propctl").path
    }

    /// Runs propctl with `arguments` against `daemon` (through PROPD_SOCKET
    /// unless `socket` says otherwise) and waits for it to exit.
    static func run(
        _ arguments: [String], daemon: PropdProcess? = nil, socket: String? = nil, stdin: String? = nil,
        environment extra: [String: String] = [:], timeout: Duration = .seconds(30)
    ) throws -> PropctlResult {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "PROPD_SOCKET")
        if let path = socket ?? daemon?.socketPath { environment["PROPD_SOCKET"] = path }
        for (k, v) in extra { environment[k] = v }
        return try runProcess(executable, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    /// Runs any program, capturing its output, and waits for its exit with a timeout.
    static func runProcess(
        _ path: String, _ arguments: [String], environment: [String: String], stdin: String? = nil,
        timeout: Duration = .seconds(30)
    ) throws -> PropctlResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try ProcessLaunch.run(process)
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try? input.fileHandleForWriting.close()
        }
        let collected = Collected()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { collected.setOut(out.fileHandleForReading.readDataToEndOfFile()) }
        DispatchQueue.global().async(group: group) { collected.setErr(err.fileHandleForReading.readDataToEndOfFile()) }
        let seconds = Double(timeout.components.seconds)
        guard let status = ChildExit.wait(process, timeout: timeout) else {
            process.terminate()
            throw ProcessTimeout(command: ([path] + arguments).joined(separator: " "))
        }
        _ = group.wait(timeout: .now() + seconds)
        return PropctlResult(status: status, stdout: collected.out, stderr: collected.err)
    }
}

/// Output read on other threads, handed over through a mutex.
final class Collected: Sendable {
    private let texts = Mutex<(out: String, err: String)>(("", ""))
    func setOut(_ d: Data) { texts.withLock { $0.out = String(decoding: d, as: UTF8.self) } }
    func setErr(_ d: Data) { texts.withLock { $0.err = String(decoding: d, as: UTF8.self) } }
    var out: String { texts.withLock { $0.out } }
    var err: String { texts.withLock { $0.err } }
}
