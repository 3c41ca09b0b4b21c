import PropdBindings
import PropdCore

/// The engine refused a binding of a file (invalid, or closing a cycle): the
/// entry — file, line, key — and why.
struct BindingFileRefusal: Error {
    var entry: BindingDirectory.Entry
    var error: ServiceError

    /// `PATH:LINE:COLUMN: message`, at the binding's key. A cycle is named
    /// at the binding that closes it: the one declared last.
    func report(directory: String) -> String {
        let message: String
        switch error {
        case .bindingCycle(let keys):
            message = "binding of \(entry.key) would close a cycle: " + (keys + keys.prefix(1)).joined(separator: " -> ")
        default:
            message = "binding of \(entry.key): \(error.description)"
        }
        return "\(directory)/\(entry.file):\(entry.line):\(entry.column): \(message)"
    }
}

extension PropertyService {
    /// Applies the binding files as ``applyBindingFiles(_:)`` does, but a
    /// file whose binding the engine refuses is left out (it keeps its
    /// earlier bindings) and the others are applied. Returns what changed and
    /// every problem as `PATH:LINE:COLUMN: message`, `PATH` under `directory`.
    public func applyBindingFiles(_ files: BindingDirectory, reportingUnder directory: String) async
        -> (reload: BindingReload, errors: [String])
    {
        var files = files
        var errors = files.failures.sorted(by: { $0.key < $1.key }).map { "\(directory)/\($0.value)" }
        // Each round leaves out one more file, so this ends.
        while true {
            let round = files
            do {
                let reload = try await commitUnmapped { transaction, state in
                    try Self.reload(round, in: &transaction, &state)
                }.value
                return (reload, errors)
            } catch is NothingToReload {
                return (BindingReload(), errors)
            } catch let refusal as BindingFileRefusal {
                errors.append(refusal.report(directory: directory))
                files.failures[refusal.entry.file] = refusal.error.description
                files.entries.removeAll { $0.file == refusal.entry.file }
            } catch {
                errors.append("\(directory): binding files not applied: \(ServiceError.from(error))")
                return (BindingReload(), errors)
            }
        }
    }
}

extension BindingDirectory {
    /// Checks the files without a store or a daemon: what ``read(_:)``
    /// reports (syntax, a key bound in two files) and what declaring them
    /// all in an empty engine refuses (cycles among the files' bindings).
    /// Bindings that clients declared in a database are not seen.
    ///
    /// - Returns: every problem as `PATH:LINE:COLUMN: message`, `PATH` under `directory`.
    public func check(directory: String) -> [String] {
        var errors = failures.sorted(by: { $0.key < $1.key }).map { "\(directory)/\($0.value)" }
        let engine = BindingEngine(clock: SystemBindingClock())
        var refusedFiles: Set<String> = []
        for entry in entries where !refusedFiles.contains(entry.file) {
            do {
                _ = try engine.declare(key: entry.key, expression: entry.expression) { _ in nil }
            } catch {
                refusedFiles.insert(entry.file)
                errors.append(BindingFileRefusal(entry: entry, error: error.serviceError).report(directory: directory))
            }
        }
        return errors
    }
}
