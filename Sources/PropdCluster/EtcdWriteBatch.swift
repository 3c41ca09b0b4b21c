import PropdCore
import PropdEtcd
import PropdStore

/// One write request's view of the space: the mirror's copy at one revision
/// plus what the request changed so far, recording every row it read.
///
/// The request becomes one etcd transaction: its writes, a put of `head`,
/// and a compare on each row it read (`mod_revision` unchanged; 0 for a row
/// it found absent). A request that read a whole table (a pattern, every
/// binding) compares `head` instead, which every write request changes.
/// If any compare fails, the space changed under the request: nothing is
/// applied, and the writer runs the request again on the newer space.
final class EtcdWriteBatch: WriteBatchStorage {
    /// A property row the request wrote (`nil`: deleted).
    struct WrittenProperty {
        var record: PropertyRecord
        var revision: Revision
        var created: Revision
    }

    let layout: SpaceLayout
    let base: SpaceState

    var properties: [Key: WrittenProperty?] = [:]
    var bindings: [Key: BindingValue?] = [:]
    var states: [Key: JSONValue?] = [:]
    var files: [Key: String?] = [:]
    var commands: Set<Key> = []
    var expiries: [Key: Int64?] = [:]

    /// The rows read from `base`, with the `mod_revision` they had.
    private(set) var guarded: [SpaceLayout.Place: Int64] = [:]
    /// The request read a whole table: guard with `head`.
    private(set) var readWholeTables = false
    /// The writes, one per etcd key, in the order first made.
    private var writes: [[UInt8]: EtcdOperation] = [:]
    private var writeOrder: [[UInt8]] = []

    init(layout: SpaceLayout, base: SpaceState) {
        self.layout = layout
        self.base = base
    }

    // MARK: The transaction

    /// What etcd is to apply, and on which condition.
    struct Request {
        /// A row the request read, with the `mod_revision` it had; negative
        /// (`-sequence`) when a request etcd has not applied yet wrote it.
        struct Guard {
            var place: SpaceLayout.Place
            var key: [UInt8]
            var modRevision: Int64
        }

        /// The compares: each row unchanged since it was read.
        var guards: [Guard]
        var operations: [EtcdOperation]
        /// The request read a whole table: it is guarded by `head` alone
        /// and must not overlap other requests.
        var readWholeTables: Bool
    }

    /// The request as one etcd transaction that also writes `transaction`
    /// into `head`. More than `maxOperations` compares become one compare on
    /// `head` (stricter, never wrong); more than `maxOperations` writes are
    /// refused with ``StoreError/limitExceeded(limit:maximum:)``: splitting
    /// them would make one request two revisions, half-applied in between.
    func request(transaction: String, maxOperations: Int) throws(StoreError) -> Request {
        var operations = writeOrder.compactMap { writes[$0] }
        operations.append(.put(key: layout.head, value: Array(transaction.utf8)))
        guard operations.count <= maxOperations else {
            throw .limitExceeded(limit: "etcd --max-txn-ops (\(operations.count) operations)", maximum: maxOperations)
        }
        if readWholeTables || guarded.count >= maxOperations {
            let head = Request.Guard(place: .head, key: layout.head, modRevision: base.head)
            return Request(guards: [head], operations: operations, readWholeTables: true)
        }
        var guards = guarded.map { place, revision in
            Request.Guard(place: place, key: etcdKey(place), modRevision: revision)
        }
        if guarded[.bindings] == nil {
            guards.append(Request.Guard(place: .bindings, key: layout.bindings, modRevision: base.bindingsChanged))
        }
        return Request(guards: guards, operations: operations, readWholeTables: false)
    }

    private func etcdKey(_ place: SpaceLayout.Place) -> [UInt8] {
        switch place {
        case .head: layout.head
        case .bindings: layout.bindings
        case .row(let table, let key): layout.key(table, key)
        }
    }

    func guardRow(_ table: SpaceLayout.Table, _ key: Key) {
        let place = SpaceLayout.Place.row(table, key)
        if guarded[place] == nil { guarded[place] = base.modRevision(of: place) }
    }

    func put(_ table: SpaceLayout.Table, _ key: Key, _ value: [UInt8]) {
        let etcdKey = layout.key(table, key)
        record(etcdKey, .put(key: etcdKey, value: value))
    }

    func remove(_ table: SpaceLayout.Table, _ key: Key) {
        let etcdKey = layout.key(table, key)
        record(etcdKey, .delete(.key(etcdKey)))
    }

    /// A binding changes: `bindings` is written, compared like a row read.
    func markBindingsChanged() {
        if guarded[.bindings] == nil { guarded[.bindings] = base.bindingsChanged }
        record(layout.bindings, .put(key: layout.bindings, value: []))
    }

    private func record(_ etcdKey: [UInt8], _ operation: EtcdOperation) {
        if writes.updateValue(operation, forKey: etcdKey) == nil { writeOrder.append(etcdKey) }
    }

    // MARK: Reading

    /// The property row as the request sees it, guarding it when read from the base.
    func current(_ key: Key) -> WrittenProperty? {
        if let written = properties[key] { return written }
        guardRow(.property, key)
        guard let row = base.properties[key] else { return nil }
        return WrittenProperty(record: row.record, revision: row.revision, created: row.created)
    }

    func currentExpiry(_ key: Key) -> Int64? {
        if let written = expiries[key] { return written }
        guardRow(.expiry, key)
        return base.expiries[key]?.value
    }

    func property(_ key: Key) throws(StoreError) -> Property? {
        guard let row = current(key) else { return nil }
        let binding = bindings[key].map { $0?.expression } ?? base.bindings[key]?.value.expression
        let expires = expiries[key] ?? base.expiries[key]?.value
        return Property(
            key: key, value: row.record.value, revision: row.revision, created: row.created,
            binding: binding, error: row.record.error, expires: expires)
    }

    func revision(of key: Key) throws(StoreError) -> Revision {
        current(key)?.revision ?? .none
    }

    func keys(matching pattern: KeyPattern) throws(StoreError) -> [Key] {
        readWholeTables = true
        var keys = Set(base.properties.keys.filter { pattern.matches($0) })
        for (key, written) in properties where pattern.matches(key) {
            if written == nil { keys.remove(key) } else { keys.insert(key) }
        }
        return keys.sorted()
    }

    func binding(_ key: Key) throws(StoreError) -> BindingRecord? {
        if let written = bindings[key] {
            return written.map { BindingRecord(key: key, expression: $0.expression, sources: $0.sources, revision: .none) }
        }
        guardRow(.binding, key)
        return base.bindingRecord(key)
    }

    func bindingState(_ key: Key) throws(StoreError) -> JSONValue? {
        if let written = states[key] { return written }
        guardRow(.state, key)
        return base.states[key]?.value
    }

    func bindingRecords() throws(StoreError) -> [BindingRecord] {
        readWholeTables = true
        var records = base.bindings.keys.reduce(into: [Key: BindingRecord]()) { $0[$1] = base.bindingRecord($1) }
        for (key, written) in bindings {
            records[key] = written.map { BindingRecord(key: key, expression: $0.expression, sources: $0.sources, revision: .none) }
        }
        return records.values.sorted { $0.key < $1.key }
    }

    func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        readWholeTables = true
        var all = base.states.mapValues(\.value)
        for (key, written) in states { all[key] = written }
        return all
    }

    func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        readWholeTables = true
        var all = base.expiries.mapValues(\.value)
        for (key, written) in expiries { all[key] = written }
        return all.sorted { $0.key < $1.key }.map { (key: $0.key, expires: $0.value) }
    }

    func commandNames() throws(StoreError) -> [Key] {
        readWholeTables = true
        return Set(base.commands.keys).union(commands).sorted()
    }

    func fileBindings() throws(StoreError) -> [Key: String] {
        readWholeTables = true
        var all = base.files.mapValues(\.value)
        for (key, written) in files { all[key] = written }
        return all
    }
}
