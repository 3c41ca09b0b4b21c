import PropdTestSupport
import Foundation
import PropdJSON
import PropdVarlink
import Testing

/// The independent client: python's `varlink` package (PyPI), through its CLI.
/// Skipped where it is not installed (`pip install varlink`).
@Suite(.enabled(if: PythonVarlink.isInstalled, "python3 -m pip install varlink"))
struct PythonInteropTests {
    @Test func theCLICallsAMethodAfterParsingOurIDL() async throws {
        let s = try await TestServer.start()
        let output = try await PythonVarlink.run(["call", "unix:\(s.path)/org.example.test.Echo", #"{"value": 21}"#])
        #expect(try JSONValue(parsing: output) == ["value": 21])
        try await s.stop()
    }

    @Test func theCLIStreamsWithMore() async throws {
        let s = try await TestServer.start()
        let output = try await PythonVarlink.run(["call", "--more", "unix:\(s.path)/org.example.test.Count", #"{"n": 3}"#])
        // One JSON object per reply, pretty-printed back to back.
        #expect(output.components(separatedBy: "\"i\"").count - 1 == 3)
        try await s.stop()
    }

    @Test func theCLIReadsServiceInfoAndEveryDescription() async throws {
        let s = try await TestServer.start()
        let info = try await PythonVarlink.run(["info", "unix:\(s.path)"])
        #expect(info.contains("org.example.test"))
        let help = try await PythonVarlink.run(["help", "unix:\(s.path)/org.example.test"])
        #expect(help.contains("method WhoAmI"))
        let service = try await PythonVarlink.run(["help", "unix:\(s.path)/org.varlink.service"])
        #expect(service.contains("method GetInfo"))
        try await s.stop()
    }
}

enum PythonVarlink {
    static let isInstalled: Bool = {
        (try? runBlocking(["python3", "-c", "import varlink"])).map { $0.status == 0 } ?? false
    }()

    struct Failed: Error, CustomStringConvertible {
        var arguments: [String]
        var status: Int32
        var output: String
        var description: String { "varlink.cli \(arguments) exited \(status): \(output)" }
    }

    /// Runs `python3 -m varlink.cli ARGS` off the cooperative pool and returns its stdout.
    static func run(_ arguments: [String]) async throws -> String {
        try await withTimeout(30) {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    do {
                        let result = try runBlocking(["python3", "-m", "varlink.cli"] + arguments)
                        if result.status == 0 {
                            continuation.resume(returning: result.output)
                        } else {
                            continuation.resume(throwing: Failed(arguments: arguments, status: result.status, output: result.output))
                        }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
    }

    private static func runBlocking(_ command: [String]) throws -> (status: Int32, output: String) {
        try Command.run("/usr/bin/env", command)
    }
}
