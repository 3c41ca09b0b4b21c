public import PropdCore
import PropdStore

/// A declared binding as `Bindings` lists it.
public struct BindingDescription: Sendable, Hashable {
    public var key: Key
    public var expression: String
    public var sources: [Key]
    /// The derived property's current evaluation error, if any.
    public var error: String?
    /// The binding's operator state as persisted (scan accumulators,
    /// counters, pending timers), for dumps; `Bind` with it continues from it.
    public var state: JSONValue?
}

/// The figures `Stats` reports that the service knows (connections are the server's).
public struct ServiceStatistics: Sendable, Hashable {
    public var revision: Revision
    public var keys: Int
    public var bindings: Int
    public var subscriptions: Int
    public var uptimeSeconds: Double
    public var databaseBytes: Int
}

extension PropertyService {
    /// `Get`: the named properties in the order asked.
    /// - Throws: `noSuchKey` naming the first missing key.
    public func get(_ keys: [Key]) throws(ServiceError) -> [Property] {
        let found: [Property?]
        do {
            found = try store.get(keys).properties
        } catch {
            throw ServiceError(error)
        }
        var properties: [Property] = []
        properties.reserveCapacity(keys.count)
        for (key, property) in zip(keys, found) {
            guard let property else { throw .noSuchKey(key.rawValue) }
            properties.append(property)
        }
        return properties
    }

    /// `List`: the properties matching `pattern` (all when `nil`), sorted by
    /// key, at most `limit`, and the revision they were read at.
    public func list(pattern: KeyPattern?, limit: Int?) throws(ServiceError) -> (properties: [Property], revision: Revision) {
        do {
            return try store.list(pattern: pattern, limit: limit)
        } catch {
            throw ServiceError(error)
        }
    }

    /// `History`: past changes of one key, newest first.
    public func history(of key: Key, limit: Int?, before: Revision?) throws(ServiceError) -> [Event] {
        do {
            return try store.history(of: key, limit: limit, before: before)
        } catch {
            throw ServiceError(error)
        }
    }

    /// `Bindings`: the declared bindings matching `pattern`, sorted by key,
    /// with each derived property's current error.
    public func bindings(matching pattern: KeyPattern?) throws(ServiceError) -> [BindingDescription] {
        do {
            let records = try store.bindings().filter { pattern?.matches($0.key) ?? true }
            let properties = try store.get(records.map(\.key)).properties
            let states = try store.bindingStates()
            return zip(records, properties).map { record, property in
                BindingDescription(
                    key: record.key, expression: record.expression, sources: record.sources, error: property?.error,
                    state: states[record.key])
            }
        } catch {
            throw ServiceError(error)
        }
    }

    /// `Stats`, but for the server's connection count.
    public func statistics() throws(ServiceError) -> ServiceStatistics {
        do {
            return ServiceStatistics(
                revision: store.revision,
                keys: try store.keyCount(),
                bindings: try store.bindingCount(),
                subscriptions: hub.subscriptionCount,
                uptimeSeconds: uptimeSeconds,
                databaseBytes: store.databaseBytes)
        } catch {
            throw ServiceError(error)
        }
    }

    /// `Subscribe`: registers first, then reads the backlog the request asks
    /// for, so the subscriber sees every revision exactly once.
    public func subscribe(_ request: SubscriptionRequest) async throws -> Subscription {
        try await hub.subscribe(request, backlog: StoreBacklog(store: store))
    }
}
