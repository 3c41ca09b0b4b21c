import PropdTestSupport
import Foundation
import Synchronization
import Testing

/// The man pages `scripts/man-pages` generates from propd's and propctl's
/// ArgumentParser definitions and from the documented config: they exist,
/// name what they document, and `man -l` renders them without a warning.
@Suite struct ManPageTests {
    static let man = ["/usr/bin/man", "/bin/man"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: man != nil, "man is not installed (apt-get install -y man-db)"))
    func pagesRenderWithoutWarnings() throws {
        guard let man = Self.man else { return }
        let pages = try GeneratedManPages.make()
        for (page, mustMention) in [
            ("man1/propctl.1", ["reload", "--strict", "--exec", "--pattern", "--rev"]),
            ("man8/propd.8", ["--check", "--bindings", "--durability"]),
            ("man5/propd.conf.5", ["max-message-bytes", "history-per-key", "access", "durability"]),
        ] {
            var environment = ProcessInfo.processInfo.environment
            environment["MANWIDTH"] = "100"
            let result = try runCapturing(man, ["--warnings", "-l", pages.directory + "/" + page], environment: environment)
            #expect(result.status == 0, "\(page): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(page) has warnings:\n\(result.stderr)")
            // Bold and underline reach a pipe as overstrikes ("x\bx", "_\bx"): keep the letters.
            let text = String(String.UnicodeScalarView(result.stdout.unicodeScalars.reduce(into: [Unicode.Scalar]()) {
                if $1 == "\u{8}" { _ = $0.popLast() } else { $0.append($1) }
            })).replacingOccurrences(of: "\u{2010}", with: "-")
            for word in mustMention { #expect(text.contains(word), "\(page) does not mention \(word)") }
        }
    }
}

/// Runs `scripts/man-pages` once per test process into a temporary
/// `man/manN` tree (usable as MANPATH) with the binaries of this build.
enum GeneratedManPages {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    static func make() throws -> (directory: String, keep: TemporaryDirectory) {
        let products = PropdProcess.productsDirectory.path
        let tool = products + "/generate-manual"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw Missing(description: "\(tool) is missing: run `swift build --product generate-manual` (scripts/test does)")
        }
        let dir = try TemporaryDirectory()
        let flat = dir.path + "/flat"
        var environment = ProcessInfo.processInfo.environment
        environment["PROPD_BIN_DIR"] = products
        environment["GENERATE_MANUAL"] = tool
        let result = try Command.run(repositoryRoot + "/scripts/man-pages", [flat], environment: environment)
        guard result.status == 0 else { throw Missing(description: "scripts/man-pages failed:\n\(result.output)") }
        for (name, section) in [("propctl.1", "1"), ("propd.8", "8"), ("propd.conf.5", "5")] {
            try FileManager.default.createDirectory(atPath: dir.path + "/man" + section, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: flat + "/" + name, toPath: dir.path + "/man\(section)/" + name)
        }
        return (dir.path, dir)
    }
}

/// A program's exit status, stdout and stderr, apart.
func runCapturing(_ executable: String, _ arguments: [String], environment: [String: String]) throws
    -> (status: Int32, stdout: String, stderr: String)
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try ProcessLaunch.run(process)
    let stderr = Mutex(Data())
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
        let data = err.fileHandleForReading.readDataToEndOfFile()
        stderr.withLock { $0 = data }
    }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let status = ChildExit.wait(process)
    group.wait()
    return (
        status, String(decoding: stdout, as: UTF8.self),
        String(decoding: stderr.withLock { $0 }, as: UTF8.self)
    )
}
