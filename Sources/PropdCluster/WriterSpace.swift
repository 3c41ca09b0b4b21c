import PropdCore
import PropdEtcd

/// The space as the node's next write request is to see it: the mirror's
/// revisions, plus the writes of the node's requests that etcd has not
/// applied to the mirror yet.
///
/// A row written by such a request carries the placeholder revision
/// `-sequence` (its real one is not known before etcd answers): a request
/// that reads it depends on the writers, and its compare on the row is
/// filled in from their acknowledged revisions before it is sent. The
/// writer's copy, so the mirror's is never copied per request; it follows
/// the mirror through ``SpaceMirror/takeWriterLog()``.
struct WriterSpace {
    let layout: SpaceLayout
    private(set) var space = SpaceState()
    /// Per row, the requests not applied yet that write it, oldest first.
    private var writers: [SpaceLayout.Place: [(sequence: UInt64, operation: EtcdOperation)]] = [:]
    /// Per request not applied yet, the rows it writes.
    private var rows: [UInt64: [SpaceLayout.Place]] = [:]

    init(layout: SpaceLayout) {
        self.layout = layout
    }

    /// The requests not applied yet that write `place`, oldest first.
    func writers(of place: SpaceLayout.Place) -> [UInt64] {
        writers[place]?.map(\.sequence) ?? []
    }

    /// Whether request `sequence` is still to be applied.
    func isPending(_ sequence: UInt64) -> Bool { rows[sequence] != nil }

    /// Adds request `sequence`'s writes.
    mutating func add(_ sequence: UInt64, _ operations: [EtcdOperation]) {
        var places: [SpaceLayout.Place] = []
        for operation in operations {
            guard let place = place(of: operation) else { continue }
            places.append(place)
            // Changed by index: through the subscript with `default:`, the
            // change would cost a heap-allocated accessor frame per call.
            if let index = writers.index(forKey: place) {
                writers.values[index].append((sequence, operation))
            } else {
                writers[place] = [(sequence, operation)]
            }
            overlay(operation, sequence: sequence)
        }
        rows[sequence] = places
    }

    /// Folds in what the mirror applied since the last look; returns the
    /// node's requests that are now applied.
    mutating func catchUp(with mirror: SpaceMirror) -> [UInt64] {
        let (log, restart) = mirror.takeWriterLog()
        if let restart {
            return rebase(on: restart, mirror: mirror)
        }
        var applied: [UInt64] = []
        for entry in log.revisions {
            for event in entry.events { _ = space.apply(event, layout: layout) }
            space.revision = entry.revision
            if let own = entry.own, rows[own] != nil {
                remove(own)
                applied.append(own)
            }
            // A row a pending request also writes shows that write again.
            for event in entry.events {
                if let place = layout.place(of: event.keyValue.key), let last = writers[place]?.last {
                    overlay(last.operation, sequence: last.sequence)
                }
            }
        }
        return applied
    }

    /// Starts again from the mirror's space with no request pending.
    mutating func reset(to mirrorSpace: SpaceState) {
        space = mirrorSpace
        writers = [:]
        rows = [:]
    }

    /// Starts again from `mirrorSpace` with the pending requests' writes
    /// on top, but those the mirror already has.
    private mutating func rebase(on mirrorSpace: SpaceState, mirror: SpaceMirror) -> [UInt64] {
        space = mirrorSpace
        var applied: [UInt64] = []
        for sequence in rows.keys.sorted() where mirror.revision(ofTransaction: sequence) != nil {
            remove(sequence)
            applied.append(sequence)
        }
        for (_, rowWriters) in writers {
            if let last = rowWriters.last { overlay(last.operation, sequence: last.sequence) }
        }
        return applied
    }

    private mutating func remove(_ sequence: UInt64) {
        for place in rows.removeValue(forKey: sequence) ?? [] {
            guard let index = writers.index(forKey: place) else { continue }
            writers.values[index].removeAll { $0.sequence == sequence }
            if writers.values[index].isEmpty { writers.remove(at: index) }
        }
    }

    private func place(of operation: EtcdOperation) -> SpaceLayout.Place? {
        switch operation {
        case .put(let key, _, _): layout.place(of: key)
        case .delete(let range): layout.place(of: range.key)
        case .range, .newest: nil
        }
    }

    /// Shows `operation` in the space, at the placeholder revision `-sequence`.
    private mutating func overlay(_ operation: EtcdOperation, sequence: UInt64) {
        let placeholder = -Int64(sequence)
        switch operation {
        case .put(let key, let value, let lease):
            let created = layout.place(of: key).flatMap { space.createRevision(of: $0) } ?? placeholder
            _ = space.apply(EtcdEvent(kind: .put, keyValue: EtcdKeyValue(
                key: key, value: value, createRevision: created, modRevision: placeholder, lease: lease)), layout: layout)
        case .delete(let range):
            _ = space.apply(EtcdEvent(kind: .delete, keyValue: EtcdKeyValue(
                key: range.key, value: [], modRevision: placeholder)), layout: layout)
        case .range, .newest:
            break
        }
    }
}
