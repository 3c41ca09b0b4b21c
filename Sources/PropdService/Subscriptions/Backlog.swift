import PropdCore

/// The events a new subscription is sent before `synced`, and the store
/// revision they were read at.
struct Backlog {
    var events: [Event]
    var revision: Revision

    static func read(for request: SubscriptionRequest, from source: any BacklogSource) async throws -> Backlog {
        switch request.backlog {
        case .none:
            return Backlog(events: [], revision: try await source.currentRevision())
        case .initial:
            let (properties, revision) = try await source.currentProperties(matching: request.patterns)
            let events = properties.filter { request.matches($0.key) }.map { property in
                Event(
                    key: property.key.rawValue, kind: .initial, value: property.value,
                    revision: property.revision, error: property.error)
            }
            return Backlog(events: events, revision: revision)
        case .replay(let count):
            let (properties, revision) = try await source.currentProperties(matching: request.patterns)
            var events: [Event] = []
            guard count > 0 else { return Backlog(events: events, revision: revision) }
            for property in properties where request.matches(property.key) {
                let history = try await source.history(of: property.key, last: count, through: revision)
                events += replayEvents(of: property, history: history, count: count)
            }
            return Backlog(events: events, revision: revision)
        case .since(let since):
            let (changeSets, revision) = try await source.changes(after: since)
            guard since <= revision else { throw SubscriptionError.sinceAhead(since: since, current: revision) }
            var events: [Event] = []
            for changeSet in changeSets where changeSet.revision > since && changeSet.revision <= revision {
                for change in changeSet.changes where request.matches(change.key) {
                    events.append(change.event(at: changeSet.revision))
                }
            }
            return Backlog(events: events, revision: revision)
        }
    }

    /// The last `count` values of a key, oldest first, ending with its current
    /// value. Deletions are not values and are left out (should a source send
    /// them). If history does not end with the current value (compacted, or a
    /// value without an entry), the current value is added, so the newest
    /// replayed value is always the current one. An error entry keeps the
    /// value before it, as the property does.
    static func replayEvents(of property: Property, history: [Event], count: Int) -> [Event] {
        var values = history.filter { $0.kind != .delete && $0.revision <= property.revision }
        if values.last?.revision != property.revision, property.value != nil || property.error != nil {
            values.append(
                Event(
                    key: property.key.rawValue, kind: .set, value: property.value,
                    revision: property.revision, error: property.error))
        }
        var lastValue: JSONValue?
        var events: [Event] = []
        for entry in values {
            let value = entry.kind == .error ? (entry.value ?? lastValue) : entry.value
            lastValue = value
            events.append(Event(key: property.key.rawValue, kind: .replay, value: value, revision: entry.revision, error: entry.error))
        }
        if var newest = events.popLast() {
            // The newest is the property as it is now.
            newest.value = property.value
            newest.error = property.error
            events.append(newest)
        }
        return Array(events.suffix(count))
    }
}
