import PropdClient
import PropdCore

/// Declares many bindings as all-or-nothing, with the daemon's one-binding
/// `Bind` call: bind them in order; if one is refused, put every key bound
/// so far back as it was (re-bind its previous expression, or unbind it and
/// restore or delete its plain value) and report the refusal.
///
/// > Limits: this is atomic in outcome, not in isolation. Between the first
/// > Bind and a rollback, other clients can see the new bindings and their
/// > values, each Bind and each undo is a revision of its own, and stateful
/// > operators of re-bound bindings (scan, take, skip) start afresh. If
/// > propctl is killed in the middle, the bindings made so far stay.
struct BindingTransaction {
    struct Declaration: Sendable {
        var key: String
        var expression: String
        /// Operator state to continue from (`propctl load`), instead of evaluating.
        var state: JSONValue? = nil
    }

    /// A refused declaration: which one, why, and whether the undo failed too.
    struct Refusal: Error {
        var index: Int
        var error: PropdClientError
        var undoFailures: [String]
    }

    let client: PropdClient

    /// Binds every declaration; returns the last revision and each one's sources.
    func apply(_ declarations: [Declaration]) async throws(Refusal) -> (revision: Revision, sources: [[String]]) {
        let before: (properties: [String: Property], bindings: [String: String])
        do {
            before = try await snapshot()
        } catch {
            throw Refusal(index: -1, error: error, undoFailures: [])
        }
        var done: [Declaration] = []
        var sources: [[String]] = []
        var revision = Revision.none
        for (index, declaration) in declarations.enumerated() {
            do {
                let result = try await client.bind(declaration.key, declaration.expression, state: declaration.state)
                revision = result.revision
                sources.append(result.sources)
                done.append(declaration)
            } catch {
                let failures = await undo(done, before: before)
                throw Refusal(index: index, error: error, undoFailures: failures)
            }
        }
        return (revision, sources)
    }

    private func snapshot() async throws(PropdClientError) -> (properties: [String: Property], bindings: [String: String]) {
        var properties: [String: Property] = [:]
        for p in try await client.list().properties { properties[p.key.rawValue] = p }
        var bindings: [String: String] = [:]
        for b in try await client.bindings() { bindings[b.key] = b.expression }
        return (properties, bindings)
    }

    /// Puts each key bound so far back as it was, newest first; returns what
    /// could not be undone.
    private func undo(_ done: [Declaration], before: (properties: [String: Property], bindings: [String: String])) async
        -> [String]
    {
        var failures: [String] = []
        for declaration in done.reversed() {
            let key = declaration.key
            do {
                if let previous = before.bindings[key] {
                    try await client.bind(key, previous)
                    continue
                }
                try await client.unbind(key)
                if let value = before.properties[key]?.value {
                    try await client.set([key: value])
                } else if before.properties[key] == nil {
                    do {
                        try await client.delete([key])
                    } catch .refused(.noSuchKey) {
                        // Never produced a value: nothing to remove.
                    }
                }
            } catch {
                failures.append("\(key): \(error.description)")
            }
        }
        return failures
    }
}
