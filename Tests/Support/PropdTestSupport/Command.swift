import Foundation

/// Runs a program to completion and returns its exit status and its
/// combined standard output and error.
public enum Command {
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try ProcessLaunch.run(process)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        let status = ChildExit.wait(process)
        return (status, String(decoding: data, as: UTF8.self))
    }
}
