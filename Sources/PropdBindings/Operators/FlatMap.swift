import PropdCore

/// `flatMap { x in key(expr) }` — RAC `flattenMap:` + `switchToLatest`: each
/// value names a key; the property follows that key's values until a value
/// names another one (then it re-subscribes and emits the new key's current
/// value). `null` follows nothing. A name that would close a cycle is refused
/// with an error state and the old key stays followed. The followed key is state.
struct FlatMapState: Sendable, Equatable {
    var target: Key?
    /// The engine's node of `target`, filled in when the edge is made.
    var targetNode: Int32?

    static func == (a: FlatMapState, b: FlatMapState) -> Bool { a.target == b.target }

    mutating func step(_ outer: Emission, _ selector: Closure, slot: Int, run: inout StreamRun) -> Emission {
        var switched = false
        switch outer {
        case .value(let value):
            let name: JSONValue
            do {
                name = try selector.call(value, limits: run.engine.limits)
            } catch {
                return .error(error.description)
            }
            let next: Key?
            switch name {
            case .null:
                next = nil
            case .string(let text):
                guard let key = try? Key(text) else {
                    return .error("flatMap named \(name.jsonString), which is not a valid key, at \(selector.location)")
                }
                next = key
            default:
                return .error("the closure of flatMap must name a key (a string), got \(name.typeName) at \(selector.location)")
            }
            if next != target {
                if let next, let cycle = run.cycle(following: next) {
                    return .error("following '\(next)' would close a cycle: " + cycle.joined(separator: " -> "))
                }
                run.follow(slot: slot, from: targetNode, to: next)
                target = next
                targetNode = nil
                switched = true
                run.stateChanged = true
            }
        case .error:
            return outer
        case .nothing, .deleted:
            break
        }
        guard let target else { return .nothing }
        if switched {
            return run.currentValue(of: target).map(Emission.value) ?? .nothing
        }
        return run.change(of: targetNode)
    }

    var json: JSONValue { ["op": "flatMap", "target": target.map { .string($0.rawValue) } ?? .null] }

    init(target: Key? = nil) { self.target = target }

    init?(json: JSONValue) {
        guard json["op"] == "flatMap" else { return nil }
        switch json["target"] {
        case .string(let text)?:
            guard let key = try? Key(text) else { return nil }
            target = key
        default:
            target = nil
        }
    }
}
