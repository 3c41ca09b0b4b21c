import PropdCore
import PropdEtcd

/// Where a property space lives in etcd: every table of the SQLite store is a
/// key range under one prefix (`--etcd-prefix`).
///
/// ```
/// PREFIX p/KEY   the property: its value, error (PropertyRecord)
/// PREFIX b/KEY   its binding: expression and sources
/// PREFIX s/KEY   its binding's operator state (JSON)
/// PREFIX f/KEY   the binding file it came from
/// PREFIX c/KEY   a command (created once)
/// PREFIX x/KEY   when it expires (milliseconds since the epoch)
/// PREFIX head    the transaction id of the last request that deleted something or put no property
/// PREFIX bindings  written by every request that changes a binding
/// ```
///
/// A property's revision and creation are etcd's `mod_revision` and
/// `create_revision` of its `p/` key, so nothing stored depends on the
/// revision a request will get. Any other request carries its id in its
/// first `p/` row (``PropertyRecord``'s `transaction`): one put per request
/// fewer for etcd. A request that read a whole table compares the table's
/// range and `head` (``EtcdWriteBatch``). Every request compares `bindings`:
/// a node whose engine has not seen another node's new binding yet cannot
/// commit a write without the derived values that binding computes.
struct SpaceLayout: Sendable {
    /// The tables, each a key range named by one letter.
    enum Table: UInt8, Sendable, CaseIterable {
        case property = 0x70  // p
        case binding = 0x62  // b
        case state = 0x73  // s
        case file = 0x66  // f
        case command = 0x63  // c
        case expiry = 0x78  // x
    }

    /// What an etcd key under the prefix is.
    enum Place: Sendable, Hashable {
        case row(Table, Key)
        case head
        case bindings
    }

    let prefix: [UInt8]
    /// The etcd keys of `head` and `bindings`, made once: every write names them.
    let head: [UInt8]
    let bindings: [UInt8]

    /// `prefix` ends with `/` (added when missing), so `/propd/a` and
    /// `/propd/ab` never share keys.
    init(prefix: String) {
        var bytes = Array(prefix.utf8)
        if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        self.prefix = bytes
        head = bytes + Array("head".utf8)
        bindings = bytes + Array("bindings".utf8)
    }

    var everything: EtcdKeyRange { .prefix(prefix) }

    func key(_ table: Table, _ key: Key) -> [UInt8] {
        var etcdKey: [UInt8] = []
        etcdKey.reserveCapacity(prefix.count + 2 + key.rawValue.utf8.count)
        etcdKey += prefix
        etcdKey.append(table.rawValue)
        etcdKey.append(UInt8(ascii: "/"))
        etcdKey += key.rawValue.utf8
        return etcdKey
    }

    /// The rows of `table` whose key starts with `start` (all when empty).
    func range(_ table: Table, startingWith start: String = "") -> EtcdKeyRange {
        .prefix(prefix + [table.rawValue, UInt8(ascii: "/")] + Array(start.utf8))
    }

    /// What `etcdKey` is, or `nil` for a key this build does not know (left alone).
    func place(of etcdKey: [UInt8]) -> Place? {
        guard etcdKey.count > prefix.count, etcdKey.starts(with: prefix) else { return nil }
        let rest = etcdKey[prefix.count...]
        if rest.elementsEqual("head".utf8) { return .head }
        if rest.elementsEqual("bindings".utf8) { return .bindings }
        guard rest.count > 2, let table = Table(rawValue: rest[rest.startIndex]),
            rest[rest.startIndex + 1] == UInt8(ascii: "/"),
            let key = try? Key(String(decoding: rest.dropFirst(2), as: UTF8.self))
        else { return nil }
        return .row(table, key)
    }
}
