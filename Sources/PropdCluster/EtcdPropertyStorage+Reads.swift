public import PropdCore
public import PropdStore

/// The present, from the node's mirror: each read is one copy of the space
/// at one revision.
extension EtcdPropertyStorage {
    public func get(_ keys: [Key]) throws(StoreError) -> (properties: [Property?], revision: Revision) {
        let space = mirror.space
        return (keys.map { space.property($0) }, Revision(space.revision))
    }

    public func list(pattern: KeyPattern?, limit: Int?) throws(StoreError) -> (properties: [Property], revision: Revision) {
        let space = mirror.space
        var keys = space.properties.keys.filter { pattern?.matches($0) ?? true }.sorted()
        if let limit, keys.count > limit { keys.removeLast(keys.count - max(0, limit)) }
        return (keys.compactMap { space.property($0) }, Revision(space.revision))
    }

    public func bindings() throws(StoreError) -> [BindingRecord] {
        let space = mirror.space
        return space.bindings.keys.sorted().compactMap { space.bindingRecord($0) }
    }

    public func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        mirror.space.states.mapValues(\.value)
    }

    public func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        mirror.space.expiries.sorted { $0.key < $1.key }.map { (key: $0.key, expires: $0.value.value) }
    }

    public func commandNames() throws(StoreError) -> [Key] {
        mirror.space.commands.keys.sorted()
    }
}
