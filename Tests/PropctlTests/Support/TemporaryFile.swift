import Foundation

/// A file with `text` in a fresh temporary directory, removed at deinit.
final class TemporaryFile {
    let directory: String
    let path: String

    init(named name: String, text: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("propctl-f-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
