import PropdCore
import Synchronization

@testable import PropdService

/// An in-memory stand-in for the store: commits change sets, keeps every
/// revision in history, and serves backlogs the way the real store must.
/// `writer` orders commit-then-publish like the service's single writer.
final class FakeStore: BacklogSource {
    struct State {
        var revision = Revision.none
        var properties: [String: Property] = [:]
        var history: [ChangeSet] = []
        /// Revisions at or below this are compacted away (for `since`).
        var compactedThrough = Revision.none
    }

    let state = Mutex(State())
    let writer = Mutex(())
    let hub: SubscriptionHub
    /// Called at the start of every backlog read, before the snapshot: lets a
    /// test commit while a subscription is between registration and read.
    let beforeRead: (@Sendable (FakeStore) -> Void)?
    /// Called after the snapshot is taken, before the backlog is returned.
    let afterRead: (@Sendable (FakeStore) -> Void)?
    /// Committed but not yet published (see ``commitWithoutPublishing(_:)``).
    let unpublished = Mutex<[ChangeSet]>([])

    init(
        hub: SubscriptionHub, beforeRead: (@Sendable (FakeStore) -> Void)? = nil,
        afterRead: (@Sendable (FakeStore) -> Void)? = nil
    ) {
        self.hub = hub
        self.beforeRead = beforeRead
        self.afterRead = afterRead
    }

    /// Commits one revision (without publishing it).
    @discardableResult
    func commit(_ changes: [Change]) -> ChangeSet {
        state.withLock { s in
            s.revision = s.revision.next
            for change in changes {
                let key = change.key.rawValue
                switch change.kind {
                case .set(let value):
                    let created = s.properties[key]?.created ?? s.revision
                    s.properties[key] = Property(key: change.key, value: value, revision: s.revision, created: created)
                case .delete:
                    s.properties[key] = nil
                case .error(let message):
                    if var property = s.properties[key] {
                        property.error = message
                        property.revision = s.revision
                        s.properties[key] = property
                    } else {
                        s.properties[key] = Property(
                            key: change.key, value: nil, revision: s.revision, created: s.revision, error: message)
                    }
                }
            }
            let changeSet = ChangeSet(revision: s.revision, changes: changes)
            s.history.append(changeSet)
            return changeSet
        }
    }

    /// Commits one revision and holds its publication back until the next
    /// ``publishHeldBack()``: the window between commit and publish.
    func commitWithoutPublishing(_ values: [(String, JSONValue)]) {
        writer.withLock { _ in
            let changeSet = commit(values.map { Change.set(key($0.0), $0.1) })
            unpublished.withLock { $0.append(changeSet) }
        }
    }

    func publishHeldBack() {
        writer.withLock { _ in
            let held = unpublished.withLock { held in
                defer { held = [] }
                return held
            }
            hub.publish(held)
        }
    }

    /// Commits and publishes one revision, as the single writer does.
    @discardableResult
    func write(_ changes: [Change]) -> ChangeSet {
        writer.withLock { _ in
            let changeSet = commit(changes)
            hub.publish([changeSet])
            return changeSet
        }
    }

    @discardableResult
    func write(_ values: [(String, JSONValue)]) -> ChangeSet {
        write(values.map { Change.set(key($0.0), $0.1) })
    }

    var revision: Revision { state.withLock { $0.revision } }
    var history: [ChangeSet] { state.withLock { $0.history } }

    func compact(through revision: Revision) {
        state.withLock { $0.compactedThrough = revision }
    }

    /// The properties as they were at `revision`, rebuilt from history.
    func properties(at revision: Revision) -> [String: JSONValue?] {
        var values: [String: JSONValue?] = [:]
        for changeSet in history where changeSet.revision <= revision {
            for change in changeSet.changes {
                switch change.kind {
                case .set(let value): values[change.key.rawValue] = .some(value)
                case .delete: values[change.key.rawValue] = nil
                case .error: if values[change.key.rawValue] == nil { values[change.key.rawValue] = .some(nil) }
                }
            }
        }
        return values
    }

    // MARK: BacklogSource

    func currentRevision() async throws -> Revision {
        beforeRead?(self)
        defer { afterRead?(self) }
        return revision
    }

    func currentProperties(matching patterns: [KeyPattern]) async throws -> (properties: [Property], revision: Revision) {
        beforeRead?(self)
        defer { afterRead?(self) }
        return state.withLock { s in
            let matching = s.properties.values.filter { p in patterns.contains { $0.matches(p.key) } }
            return (matching.sorted { $0.key < $1.key }, s.revision)
        }
    }

    func history(of key: Key, last count: Int, through revision: Revision) async throws -> [Event] {
        state.withLock { s in
            var events: [Event] = []
            for changeSet in s.history where changeSet.revision <= revision {
                for change in changeSet.changes where change.key == key && change.kind != .delete {
                    events.append(change.event(at: changeSet.revision))
                }
            }
            return Array(events.suffix(count))
        }
    }

    func changes(after since: Revision) async throws -> (changeSets: [ChangeSet], revision: Revision) {
        beforeRead?(self)
        defer { afterRead?(self) }
        return try state.withLock { s in
            if since < s.compactedThrough {
                throw SubscriptionError.revisionCompacted(since: since, oldest: s.compactedThrough.next)
            }
            return (s.history.filter { $0.revision > since }, s.revision)
        }
    }
}

/// A key from a literal known to be valid.
func key(_ text: String) -> Key {
    do { return try Key(text) } catch { fatalError("invalid test key \(text): \(error)") }
}

/// A pattern from a literal known to be valid.
func pattern(_ text: String) -> KeyPattern {
    do { return try KeyPattern(text) } catch { fatalError("invalid test pattern \(text): \(error)") }
}
