import PropdCore

/// The state of one stateful node of a binding, in the node's slot.
enum OperatorState: Sendable, Equatable {
    case combineLatest(CombineLatestState)
    case filter(FilterState)
    case distinctUntilChanged(DistinctState)
    case skip(SkipState)
    case take(TakeState)
    case scan(ScanState)
    case throttle(ThrottleState)
    case flatMap(FlatMapState)
    case takeUntil(TakeUntilState)
    case takeWhile(TakeWhileState)
    case skipWhile(SkipWhileState)
    case timeout(TimeoutState)
    case delay(DelayState)
    /// Held while a slot's state is taken out to be mutated in place.
    case vacant

    var json: JSONValue {
        switch self {
        case .combineLatest(let s): return s.json
        case .filter(let s): return s.json
        case .distinctUntilChanged(let s): return s.json
        case .skip(let s): return s.json
        case .take(let s): return s.json
        case .scan(let s): return s.json
        case .throttle(let s): return s.json
        case .flatMap(let s): return s.json
        case .takeUntil(let s): return s.json
        case .takeWhile(let s): return s.json
        case .skipWhile(let s): return s.json
        case .timeout(let s): return s.json
        case .delay(let s): return s.json
        case .vacant: return .null
        }
    }

    /// A state of the same kind as `self` read from `json`, or `nil` when the
    /// JSON does not describe a state of this kind.
    func restored(from json: JSONValue) -> OperatorState? {
        switch self {
        case .combineLatest(let s): return CombineLatestState(json: json, count: s.latest.count).map { .combineLatest($0) }
        case .filter: return FilterState(json: json).map { .filter($0) }
        case .distinctUntilChanged: return DistinctState(json: json).map { .distinctUntilChanged($0) }
        case .skip: return SkipState(json: json).map { .skip($0) }
        case .take: return TakeState(json: json).map { .take($0) }
        case .scan: return ScanState(json: json).map { .scan($0) }
        case .throttle: return ThrottleState(json: json).map { .throttle($0) }
        case .flatMap: return FlatMapState(json: json).map { .flatMap($0) }
        case .takeUntil: return TakeUntilState(json: json).map { .takeUntil($0) }
        case .takeWhile: return TakeWhileState(json: json).map { .takeWhile($0) }
        case .skipWhile: return SkipWhileState(json: json).map { .skipWhile($0) }
        case .timeout: return TimeoutState(json: json).map { .timeout($0) }
        case .delay: return DelayState(json: json).map { .delay($0) }
        case .vacant: return nil
        }
    }

    /// When this state next needs an evaluation without any input (a time
    /// operator's pending timer), in milliseconds since the epoch.
    var deadline: Int64? {
        switch self {
        case .throttle(let s): return s.deadline
        case .timeout(let s): return s.deadline
        case .delay(let s): return s.deadline
        default: return nil
        }
    }
}
