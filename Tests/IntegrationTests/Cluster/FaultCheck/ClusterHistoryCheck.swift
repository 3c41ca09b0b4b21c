import PropdClient
import PropdCore

/// The verdict on a run of compare-and-set writers under faults, from what
/// the clients were told (the ledger) and what the space says happened
/// (`History` and `Get(revision:)` of a node after the run).
///
/// A pure function of its inputs, so the same check can be shown to fail on
/// a corrupted ledger or a wrong binding.
struct ClusterHistoryCheck {
    /// The keys the clients write; each starts at 0, set at `setupRevision`.
    var sources: [String]
    var setupRevision: Revision
    /// The derived key, declared at `bindRevision` as `binding` of the sources.
    var derived: String
    var bindRevision: Revision
    var binding: @Sendable (JSONValue, JSONValue) -> JSONValue?
    var attempts: [Attempt]
    /// `History` of every key, newest first, as the checking node answered.
    var histories: [String: [Event]]
    /// The same from another node: it must be the same history.
    var otherHistories: [String: [Event]]
    /// `Get(sources + [derived], revision:)` at some revisions.
    var snapshots: [Revision: [Property]]

    func violations() -> [String] {
        var found: [String] = []
        for key in sources + [derived] {
            found += ordering(of: key)
            if histories[key] != otherHistories[key] { found.append("\(key): the two nodes' histories differ") }
        }
        found += acknowledgements()
        for key in sources { found += sourceEntries(of: key) }
        found += derivedValues()
        found += snapshotValues()
        return found
    }

    /// The key's entries, oldest first.
    func timeline(_ key: String) -> [Event] { (histories[key] ?? []).reversed() }

    /// No revision has two values for a key: revisions strictly increase.
    private func ordering(of key: String) -> [String] {
        let revisions = timeline(key).map(\.revision)
        return zip(revisions, revisions.dropFirst()).compactMap { earlier, later in
            earlier < later ? nil : "\(key): history has revision \(later) after \(earlier) (two values at one revision?)"
        }
    }

    /// Every acknowledged write is in the history, at its revision, and a
    /// client's acknowledgements come in the order it wrote.
    private func acknowledgements() -> [String] {
        var found: [String] = []
        var lastAcknowledged: [Int: Revision] = [:]
        for attempt in attempts {
            guard case .acknowledged(let revision) = attempt.outcome else { continue }
            let entry = timeline(attempt.key).first { $0.revision == revision }
            if entry?.value != .integer(attempt.value) {
                let actual = entry.map { "\($0.value.map(String.init(describing:)) ?? "no value")" } ?? "no entry"
                found.append(
                    "acknowledged \(attempt.key)=\(attempt.value) at \(revision) (client \(attempt.client)), history has \(actual)")
            }
            if let last = lastAcknowledged[attempt.client], last >= revision {
                found.append("client \(attempt.client) was acknowledged \(revision) after \(last)")
            }
            lastAcknowledged[attempt.client] = revision
        }
        return found
    }

    /// Every value in a source's history after the setup was written by one
    /// attempt that was not refused, once, over the revision it expected.
    private func sourceEntries(of key: String) -> [String] {
        let entries = timeline(key)
        guard let setup = entries.first, setup.revision == setupRevision, setup.value == .integer(0) else {
            return ["\(key): history does not start with the setup write 0 at \(setupRevision)"]
        }
        var byValue: [Int64: Attempt] = [:]
        for attempt in attempts where attempt.key == key { byValue[attempt.value] = attempt }
        var found: [String] = []
        var applied: Set<Int64> = []
        for (previous, entry) in zip(entries, entries.dropFirst()) {
            guard entry.kind == .set, case .integer(let value)? = entry.value else {
                found.append("\(key) at \(entry.revision): \(entry.kind) \(String(describing: entry.value)), no client wrote that")
                continue
            }
            guard let attempt = byValue[value] else {
                found.append("\(key)=\(value) at \(entry.revision) was written by no recorded attempt")
                continue
            }
            if !applied.insert(value).inserted { found.append("\(key)=\(value) applied twice (again at \(entry.revision))") }
            switch attempt.outcome {
            case .refused(let reason):
                found.append("\(key)=\(value) at \(entry.revision) was refused (\(reason)), yet applied")
            case .acknowledged(let revision) where revision != entry.revision:
                found.append("\(key)=\(value) acknowledged at \(revision), applied at \(entry.revision)")
            case .acknowledged, .indeterminate:
                break
            }
            if previous.revision != attempt.expected {
                found.append(
                    "\(key)=\(value) at \(entry.revision) expected revision \(attempt.expected), replaced \(previous.revision)")
            }
        }
        return found
    }

    /// The derived key has one value at every revision that changed a
    /// source, and it is the binding applied to the sources there.
    private func derivedValues() -> [String] {
        guard sources.count == 2 else { return ["the check knows bindings of two sources"] }
        let derivedEntries = Dictionary(timeline(derived).map { ($0.revision, $0) }, uniquingKeysWith: { first, _ in first })
        var sourceChanges: [Revision: [String: JSONValue?]] = [:]
        for key in sources { for entry in timeline(key) { sourceChanges[entry.revision, default: [:]][key] = entry.value } }
        var current: [String: JSONValue?] = [:]
        var found: [String] = []
        for revision in Set(sourceChanges.keys).union(derivedEntries.keys).sorted() {
            for (key, value) in sourceChanges[revision] ?? [:] { current[key] = value }
            guard revision >= bindRevision else { continue }
            let changedASource = sourceChanges[revision] != nil
            guard let entry = derivedEntries[revision] else {
                if changedASource { found.append("\(derived) has no value at \(revision), where a source changed") }
                continue
            }
            if !changedASource && revision != bindRevision {
                found.append("\(derived) changed at \(revision), where no source did")
            }
            guard let x = current[sources[0]] ?? nil, let y = current[sources[1]] ?? nil else {
                found.append("\(derived) at \(revision): a source has no value")
                continue
            }
            let expected = binding(x, y)
            if entry.value != expected {
                found.append(
                    "\(derived) at \(revision) is \(String(describing: entry.value)), "
                        + "the binding of \(x), \(y) is \(String(describing: expected))")
            }
        }
        return found
    }

    /// `Get(revision:)` agrees with the history at every sampled revision.
    private func snapshotValues() -> [String] {
        var found: [String] = []
        for (revision, properties) in snapshots.sorted(by: { $0.key < $1.key }) {
            for property in properties {
                let key = property.key.description
                guard let entry = timeline(key).last(where: { $0.revision <= revision }) else {
                    found.append("Get \(key) at \(revision) answered, history has nothing by then")
                    continue
                }
                if property.value != entry.value || property.revision != entry.revision {
                    found.append(
                        "Get \(key) at \(revision): \(String(describing: property.value)) of \(property.revision), "
                            + "history: \(String(describing: entry.value)) of \(entry.revision)")
                }
            }
        }
        return found
    }
}
