import PropdCore
import PropdEtcd
import PropdStore

/// A row of a table as the mirror keeps it, with the etcd revisions a
/// transaction compares against.
struct MirrorRow<Value: Sendable>: Sendable {
    var value: Value
    var modRevision: Int64
    var createRevision: Int64
}

/// A property row: its record and the revision of its last change (which a
/// silent put keeps).
struct MirroredProperty: Sendable {
    var record: PropertyRecord
    var modRevision: Int64
    var created: Revision
    var revision: Revision
}

/// The property space at one etcd revision, in memory: every table under
/// the prefix. A value type, so a write request reads a consistent copy
/// while the watch moves the mirror on.
struct SpaceState: Sendable {
    /// Every change under the prefix up to this revision is applied.
    var revision: Int64 = 0
    /// The newest revision that changed something under the prefix (a
    /// progress notification moves ``revision`` past it, not this).
    var newestChange: Int64 = 0
    /// The `mod_revision` of `head` (0 before the first request that put it).
    var head: Int64 = 0
    /// The `mod_revision` of `bindings` (0 before the first binding).
    var bindingsChanged: Int64 = 0
    var properties: [Key: MirroredProperty] = [:]
    var bindings: [Key: MirrorRow<BindingValue>] = [:]
    var states: [Key: MirrorRow<JSONValue>] = [:]
    var files: [Key: MirrorRow<String>] = [:]
    var commands: [Key: MirrorRow<Void>] = [:]
    var expiries: [Key: MirrorRow<Int64>] = [:]

    /// The `mod_revision` of `place` (0 when absent), for a compare.
    func modRevision(of place: SpaceLayout.Place) -> Int64 {
        switch place {
        case .head: return head
        case .bindings: return bindingsChanged
        case .row(let table, let key):
            switch table {
            case .property: return properties[key]?.modRevision ?? 0
            case .binding: return bindings[key]?.modRevision ?? 0
            case .state: return states[key]?.modRevision ?? 0
            case .file: return files[key]?.modRevision ?? 0
            case .command: return commands[key]?.modRevision ?? 0
            case .expiry: return expiries[key]?.modRevision ?? 0
            }
        }
    }

    /// The property as `Get` returns it.
    func property(_ key: Key) -> Property? {
        guard let row = properties[key] else { return nil }
        return Property(
            key: key, value: row.record.value, revision: row.revision, created: row.created,
            binding: bindings[key]?.value.expression, error: row.record.error, expires: expiries[key]?.value)
    }

    /// Applies one etcd event; returns the change it is to subscribers (if
    /// any) and the transaction id it carries (`head`, or the property row
    /// that marks its transaction).
    mutating func apply(_ event: EtcdEvent, layout: SpaceLayout) -> (change: Change?, transaction: String?) {
        let kv = event.keyValue
        guard let place = layout.place(of: kv.key) else { return (nil, nil) }
        let deleted = event.kind == .delete
        switch place {
        case .head:
            head = deleted ? 0 : kv.modRevision
            return (nil, deleted ? nil : String(decoding: kv.value, as: UTF8.self))
        case .bindings:
            bindingsChanged = deleted ? 0 : kv.modRevision
            return (nil, nil)
        case .row(let table, let key):
            switch table {
            case .property:
                if deleted {
                    return (properties.removeValue(forKey: key) == nil ? nil : .delete(key), nil)
                }
                guard var record = PropertyRecord(bytes: kv.value) else { return (nil, nil) }
                let transaction = record.transaction
                record.transaction = nil
                let revision = record.silent ? (record.kept ?? Revision(kv.modRevision)) : Revision(kv.modRevision)
                properties[key] = MirroredProperty(
                    record: record, modRevision: kv.modRevision, created: Revision(kv.createRevision), revision: revision)
                return (record.change(of: key), transaction)
            case .binding:
                bindings[key] = deleted ? nil : BindingValue(bytes: kv.value).map { row($0, kv) }
            case .state:
                states[key] = deleted ? nil : (try? JSONValue(parsingUTF8: kv.value)).map { row($0, kv) }
            case .file:
                files[key] = deleted ? nil : row(String(decoding: kv.value, as: UTF8.self), kv)
            case .command:
                commands[key] = deleted ? nil : row((), kv)
            case .expiry:
                expiries[key] = deleted ? nil : Int64(decimalBytes: kv.value).map { row($0, kv) }
            }
            return (nil, nil)
        }
    }

    private func row<Value>(_ value: Value, _ kv: EtcdKeyValue) -> MirrorRow<Value> {
        MirrorRow(value: value, modRevision: kv.modRevision, createRevision: kv.createRevision)
    }

    /// The binding as the seam returns it.
    func bindingRecord(_ key: Key) -> BindingRecord? {
        guard let row = bindings[key] else { return nil }
        return BindingRecord(
            key: key, expression: row.value.expression, sources: row.value.sources,
            revision: Revision(row.modRevision))
    }
}

extension SpaceState {
    /// The `create_revision` of the row at `place`, `nil` when it is absent.
    func createRevision(of place: SpaceLayout.Place) -> Int64? {
        switch place {
        case .head: return head == 0 ? nil : head
        case .bindings: return bindingsChanged == 0 ? nil : bindingsChanged
        case .row(let table, let key):
            switch table {
            case .property: return properties[key]?.created.rawValue
            case .binding: return bindings[key]?.createRevision
            case .state: return states[key]?.createRevision
            case .file: return files[key]?.createRevision
            case .command: return commands[key]?.createRevision
            case .expiry: return expiries[key]?.createRevision
            }
        }
    }

    /// The events etcd reports for a transaction that wrote `operations`
    /// at `revision` on this space: a put keeps the row's creation (or
    /// creates it at `revision`); a delete of an absent key is no event.
    /// `nil` for a range delete, whose keys only etcd's events tell.
    func events(of operations: [EtcdOperation], at revision: Int64, layout: SpaceLayout) -> [EtcdEvent]? {
        if operations.contains(where: { if case .delete(let range) = $0 { !range.rangeEnd.isEmpty } else { false } }) {
            return nil
        }
        return operations.compactMap { operation in
            switch operation {
            case .put(let key, let value, let lease):
                let created = layout.place(of: key).flatMap { createRevision(of: $0) } ?? revision
                return EtcdEvent(kind: .put, keyValue: EtcdKeyValue(
                    key: key, value: value, createRevision: created, modRevision: revision, lease: lease))
            case .delete(let range):
                guard let place = layout.place(of: range.key), createRevision(of: place) != nil else { return nil }
                return EtcdEvent(kind: .delete, keyValue: EtcdKeyValue(key: range.key, value: [], modRevision: revision))
            case .range, .newest:
                return nil
            }
        }
    }
}
