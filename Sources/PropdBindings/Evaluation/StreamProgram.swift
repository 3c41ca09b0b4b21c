import PropdCore

/// A compiled binding stream. Sources are indexes into the binding's source
/// keys; stateful steps own a slot in the binding's operator states.
indirect enum StreamProgram: Sendable {
    case source(Int)
    case combineLatest([StreamProgram], slot: Int)
    case merge([StreamProgram])
    case step(StreamProgram, Step, slot: Int)
}

/// One compiled operator.
enum Step: Sendable {
    case map(Closure)
    case filter(Closure)
    case distinctUntilChanged
    case skip(Int)
    case take(Int)
    case startWith(JSONValue)
    case catchTo(JSONValue)
    case throttle(milliseconds: Int64)
    case scan(seed: JSONValue, Closure)
    case flatMap(Closure)
    /// `KEY` and its index among the binding's sources.
    case takeUntil(Key, source: Int)
    case takeWhile(Closure)
    case skipWhile(Closure)
    case ignore(JSONValue)
    /// `written`: the duration as the expression spells it, for the error message.
    case timeout(milliseconds: Int64, written: String)
    case delay(milliseconds: Int64)

    /// Whether the operator keeps values to emit them later (a value it
    /// takes in without emitting is not dropped).
    var holdsValues: Bool {
        switch self {
        case .throttle, .delay: return true
        default: return false
        }
    }

    /// The operator as the graph description shows it.
    var label: String {
        switch self {
        case .map: return "map"
        case .filter: return "filter"
        case .distinctUntilChanged: return "distinctUntilChanged"
        case .skip(let n): return "skip(\(n))"
        case .take(let n): return "take(\(n))"
        case .startWith(let v): return "startWith(\(v.jsonString))"
        case .catchTo(let v): return "catchTo(\(v.jsonString))"
        case .throttle(let ms): return "throttle(\(ms)ms)"
        case .scan(let seed, _): return "scan(\(seed.jsonString))"
        case .flatMap: return "flatMap"
        case .takeUntil(let key, _): return "takeUntil(\(key))"
        case .takeWhile: return "takeWhile"
        case .skipWhile: return "skipWhile"
        case .ignore(let v): return "ignore(\(v.jsonString))"
        case .timeout(let ms, _): return "timeout(\(ms)ms)"
        case .delay(let ms): return "delay(\(ms)ms)"
        }
    }
}
