import Foundation
import PropdBindings
public import PropdCore

/// The binding files of a directory (`*.prop`), read and parsed.
///
/// A file that cannot be read or parsed contributes no binding and is listed
/// in ``failures``; applying the set leaves that file's earlier bindings as
/// they were ("a file with an error is reported and changes nothing").
public struct BindingDirectory: Sendable {
    /// A binding a file declares.
    public struct Entry: Sendable, Hashable {
        public var key: Key
        public var expression: String
        /// The file's name within the directory.
        public var file: String
        /// Where the binding's key starts in the file, 1-based.
        public var line: Int = 1
        public var column: Int = 1
    }

    public var entries: [Entry]
    /// Files that were not applied, with why (file:line:column: message).
    public var failures: [String: String]
    /// In a cluster, the node whose directory this is (`HOST:DIRECTORY`):
    /// each node's files are its own, so applying them declares, changes
    /// and removes only bindings its own files declared (their marks read
    /// `OWNER/FILE`); a binding another node's files declare is left alone,
    /// unless these files declare the same key (the last applied wins).
    /// `nil` on a standalone daemon: every file binding is the directory's.
    public var owner: String?

    public init(entries: [Entry] = [], failures: [String: String] = [:]) {
        self.entries = entries
        self.failures = failures
    }

    /// Reads every `*.prop` file of `path`, in name order. A missing
    /// directory holds no bindings.
    public static func read(_ path: String) -> BindingDirectory {
        var result = BindingDirectory()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".prop") }.sorted()
        } catch {
            return result
        }
        var declaredBy: [Key: String] = [:]
        for name in names {
            let text: String
            do {
                text = try String(contentsOfFile: path + "/" + name, encoding: .utf8)
            } catch {
                result.failures[name] = "\(name): cannot be read: \(error.localizedDescription)"
                continue
            }
            let parsed: [BindingFileEntry]
            do {
                parsed = try BindingFile.parse(text, fileName: name)
            } catch {
                result.failures[name] = error.description
                continue
            }
            if let clash = parsed.first(where: { declaredBy[$0.key] != nil }), let other = declaredBy[clash.key] {
                result.failures[name] =
                    "\(name):\(clash.line):\(clash.column): \(clash.key) is already bound in \(other)"
                continue
            }
            for entry in parsed {
                declaredBy[entry.key] = name
                result.entries.append(
                    Entry(key: entry.key, expression: entry.expression, file: name, line: entry.line, column: entry.column))
            }
        }
        return result
    }
}

/// What applying binding files changed.
public struct BindingReload: Sendable, Hashable {
    public var declared: [Key] = []
    public var removed: [Key] = []
    /// The revision that applied the changes; `nil` when nothing changed.
    public var revision: Revision?
}
