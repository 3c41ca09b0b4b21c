import PropdBindings
import PropdCore
import PropdStore

/// Thrown by a reload body that found nothing to change, so it consumes no revision.
struct NothingToReload: Error {}

extension PropertyService {
    /// Applies the binding files atomically, as one revision: bindings the
    /// files add or change are declared, bindings that came from a file that
    /// no longer declares them are removed. Files listed in
    /// `directory.failures` keep their earlier bindings. Bindings declared by
    /// clients are left alone unless a file declares the same key (the file wins).
    ///
    /// - Throws: the first binding error (`bindingInvalid` with the file's
    ///   position in the message, `bindingCycle`); then nothing changed.
    @discardableResult
    public func applyBindingFiles(_ directory: BindingDirectory) async throws(ServiceError) -> BindingReload {
        do {
            return try await commitUnmapped { transaction, state in
                try Self.reload(directory, in: &transaction, &state)
            }.value
        } catch is NothingToReload {
            return BindingReload()
        } catch let failure as BindingFileRefusal {
            throw Self.located(failure.error, in: failure.entry)
        } catch {
            throw ServiceError.from(error)
        }
    }

    static func reload(
        _ directory: BindingDirectory, in transaction: inout WriteTransaction, _ state: inout EngineState
    ) throws -> BindingReload {
        var reload = BindingReload()
        let allMarks = try transaction.fileBindings()
        let marks = directory.ownMarks(allMarks)
        let wanted = Set(directory.entries.map(\.key))
        // Removals first, so a binding moved between keys cannot form a false cycle.
        for (key, file) in marks.sorted(by: { $0.key < $1.key })
        where !wanted.contains(key) && directory.failures[file] == nil {
            try undeclare(key, in: &transaction, &state)
            reload.removed.append(key)
        }
        for entry in directory.entries {
            let current = try transaction.binding(entry.key)
            if current?.expression != entry.expression {
                do {
                    _ = try declare(entry.key, expression: entry.expression, in: &transaction, &state)
                } catch let error as ServiceError {
                    throw BindingFileRefusal(entry: entry, error: error)
                }
                reload.declared.append(entry.key)
            }
            let mark = directory.mark(of: entry)
            if allMarks[entry.key] != mark { try transaction.markFileBinding(entry.key, file: mark) }
        }
        guard !reload.declared.isEmpty || !reload.removed.isEmpty else { throw NothingToReload() }
        reload.revision = transaction.revision
        return reload
    }

}

extension BindingDirectory {
    /// What marks a binding as declared by `entry`'s file: its name, or in a
    /// cluster `OWNER/NAME`.
    func mark(of entry: Entry) -> String {
        owner.map { "\($0)/\(entry.file)" } ?? entry.file
    }

    /// The marks of this directory's files, by file name: every mark on a
    /// standalone daemon; in a cluster, those of this node's files.
    func ownMarks(_ marks: [Key: String]) -> [Key: String] {
        guard let owner else { return marks }
        let prefix = owner + "/"
        return marks.compactMapValues { mark in
            guard mark.hasPrefix(prefix) else { return nil }
            let name = mark.dropFirst(prefix.count)
            // A deeper directory of the same host is another owner.
            return name.contains("/") ? nil : String(name)
        }
    }
}

extension PropertyService {
    /// A binding error from a file names the file and the binding's line.
    static func located(_ error: ServiceError, in entry: BindingDirectory.Entry) -> ServiceError {
        switch error {
        case .bindingInvalid(let message, let line, let column):
            return .bindingInvalid(message: "\(entry.file): \(entry.key): \(message)", line: line, column: column)
        default:
            return error
        }
    }
}
