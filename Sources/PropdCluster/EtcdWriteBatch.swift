import PropdCore
import PropdEtcd
import PropdStore

/// One write request's view of the space: the mirror's copy at one revision
/// plus what the request changed so far, recording every row it read.
///
/// The request becomes one etcd transaction: its writes, and a compare on
/// each row it read (`mod_revision` unchanged; 0 for a row it found absent).
/// The transaction's id rides in its first property put (``PropertyRecord``'s
/// `transaction`); a request that deletes something or puts no property
/// puts `head` with it instead. A request that read a whole table (a
/// pattern, every binding) compares the table's key range instead: no key
/// in it written since the base's revision, and no `head` put since (a
/// delete leaves no key to compare). If any compare fails, the space changed
/// under the request: nothing is applied, and the writer runs the request
/// again on the newer space.
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
    /// The key ranges the request read whole (a table, or the rows a pattern's literal prefix starts).
    private var wholeReads: [EtcdKeyRange] = []
    /// The writes, one per etcd key, in the order first made.
    private var writes: [[UInt8]: EtcdOperation] = [:]
    private var writeOrder: [[UInt8]] = []
    /// The property each `p/` key put stands for: its record is encoded
    /// once, when the transaction is made (``properties`` has the last).
    private var propertyRows: [[UInt8]: Key] = [:]

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
        /// Ranges read whole: no key in them written after ``baseRevision``.
        var unchangedRanges: [EtcdKeyRange]
        var baseRevision: Int64
        var operations: [EtcdOperation]
        /// The etcd key whose value carries the transaction's id.
        var marker: [UInt8]

        /// The request read whole ranges: it must not overlap other requests.
        var readWholeTables: Bool { !unchangedRanges.isEmpty }

        /// The compares to send, with the revisions the pending requests
        /// this one read from were given (`resolved`, by guard index).
        func compares(resolved: [Int: Int64]) -> [EtcdCompare] {
            var compares = guards.enumerated().map { index, row in
                // A row deleted by a pending request stays absent: 0.
                let revision = row.modRevision < 0 ? resolved[index] ?? 0 : row.modRevision
                return EtcdCompare(.key(row.key), .equal, .modRevision(revision))
            }
            for range in unchangedRanges {
                compares.append(EtcdCompare(range, .less, .modRevision(baseRevision + 1)))
            }
            return compares
        }
    }

    /// The request as one etcd transaction marked with `transaction`, its
    /// id. Every compare is read back when one fails (to learn how far the
    /// mirror must get), so at most `maxOperations - 1` of them: more
    /// become one compare on the whole space (stricter, never wrong). More
    /// than `maxOperations` writes are refused with
    /// ``StoreError/limitExceeded(limit:maximum:)``: splitting them would make
    /// one request two revisions, half-applied in between.
    func request(transaction: String, maxOperations: Int) throws(StoreError) -> Request {
        // A request that deletes puts `head`, which whole-range compares watch.
        let marksRow = !writes.values.contains { if case .delete = $0 { true } else { false } }
        var marker: [UInt8]?
        var operations: [EtcdOperation] = []
        operations.reserveCapacity(writeOrder.count + 1)
        for etcdKey in writeOrder {
            guard let operation = writes[etcdKey] else { continue }
            guard case .put = operation, let property = propertyRows[etcdKey], let written = properties[property] ?? nil
            else {
                operations.append(operation)
                continue
            }
            var record = written.record
            if marksRow, marker == nil {
                record.transaction = transaction
                marker = etcdKey
            }
            operations.append(.put(key: etcdKey, value: record.bytes))
        }
        if marker == nil {
            operations.append(.put(key: layout.head, value: Array(transaction.utf8)))
        }
        guard operations.count <= maxOperations else {
            throw .limitExceeded(limit: "etcd --max-txn-ops (\(operations.count) operations)", maximum: maxOperations)
        }
        var guards = guarded.map { place, revision in
            Request.Guard(place: place, key: etcdKey(place), modRevision: revision)
        }
        if guarded[.bindings] == nil {
            guards.append(Request.Guard(place: .bindings, key: layout.bindings, modRevision: base.bindingsChanged))
        }
        var ranges = wholeReads.isEmpty ? [] : wholeReads + [.key(layout.head)]
        if guards.count + ranges.count >= maxOperations {
            guards = []
            ranges = [layout.everything]
        }
        return Request(
            guards: guards, unchangedRanges: ranges, baseRevision: base.revision, operations: operations,
            marker: marker ?? layout.head)
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

    /// A property row's put, its record encoded when the transaction is made.
    func putProperty(_ key: Key) {
        let etcdKey = layout.key(.property, key)
        propertyRows[etcdKey] = key
        record(etcdKey, .put(key: etcdKey, value: []))
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

    private func readWhole(_ range: EtcdKeyRange) {
        if !wholeReads.contains(range) { wholeReads.append(range) }
    }

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
        readWhole(layout.range(.property, startingWith: pattern.literalPrefix))
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
        readWhole(layout.range(.binding))
        var records = base.bindings.keys.reduce(into: [Key: BindingRecord]()) { $0[$1] = base.bindingRecord($1) }
        for (key, written) in bindings {
            records[key] = written.map { BindingRecord(key: key, expression: $0.expression, sources: $0.sources, revision: .none) }
        }
        return records.values.sorted { $0.key < $1.key }
    }

    func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        readWhole(layout.range(.state))
        var all = base.states.mapValues(\.value)
        for (key, written) in states { all[key] = written }
        return all
    }

    func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        readWhole(layout.range(.expiry))
        var all = base.expiries.mapValues(\.value)
        for (key, written) in expiries { all[key] = written }
        return all.sorted { $0.key < $1.key }.map { (key: $0.key, expires: $0.value) }
    }

    func commandNames() throws(StoreError) -> [Key] {
        readWhole(layout.range(.command))
        return Set(base.commands.keys).union(commands).sorted()
    }

    func fileBindings() throws(StoreError) -> [Key: String] {
        readWhole(layout.range(.file))
        var all = base.files.mapValues(\.value)
        for (key, written) in files { all[key] = written }
        return all
    }
}
