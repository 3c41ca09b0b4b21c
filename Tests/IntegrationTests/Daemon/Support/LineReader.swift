import Foundation

/// The lines a child writes to a pipe, read on a thread until EOF and
/// awaited one by one.
final class LineReader: Sendable {
    private let lines = Mailbox<String>()

    struct Timeout: Error, CustomStringConvertible {
        var waitingFor: String
        var seen: [String]
        var description: String { "no line \(waitingFor) in time; seen: \(seen.suffix(20))" }
    }

    /// Reads `pipe` from now on; `echo` also receives every line (e.g. to keep a log).
    init(_ pipe: Pipe, echo: (@Sendable (String) -> Void)? = nil) {
        let handle = pipe.fileHandleForReading
        let lines = self.lines
        let reader = Thread {
            var pending: [UInt8] = []
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                pending += data
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    echo?(line)
                    lines.push(line)
                }
            }
            if !pending.isEmpty { lines.push(String(decoding: pending, as: UTF8.self)) }
            lines.close()
        }
        reader.start()
    }

    /// The next line, or throws after `timeout` or at EOF.
    func next(timeout: Duration = .seconds(30)) async throws -> String {
        guard let line = await lines.next(timeout: timeout) else { throw Timeout(waitingFor: "(any)", seen: []) }
        return line
    }

    /// Lines until one contains `text`; returns them all.
    @discardableResult
    func wait(containing text: String, timeout: Duration = .seconds(30)) async throws -> [String] {
        let (taken, found) = await lines.take(timeout: timeout) { $0.contains(text) }
        guard found else { throw Timeout(waitingFor: text, seen: taken) }
        return taken
    }
}
