import PropdCore

/// A binding compiled once when it is declared: the stream program, its
/// static source keys in order of first use, and the initial operator states.
struct CompiledBinding: Sendable {
    var program: StreamProgram
    /// The keys named outside closures, each once, in order of first use.
    var sources: [Key]
    var initialStates: [OperatorState]
    /// The operators in the order they are written, for the graph description.
    var operatorLabels: [String]
    /// Whether a time operator (`throttle`, `timeout`, `delay`) is present
    /// (the binding may hold a timer).
    var usesTime: Bool
    /// Whether a `flatMap` is present (the binding may follow keys).
    var usesFlatMap: Bool
    /// The sources named only as `takeUntil`'s key: their changes end the
    /// stream, their values are never read.
    var stopSignals: [Key]

    /// Parses, checks and compiles `text`.
    init(_ text: String) throws(BindingError) {
        let syntax = try Parser.parse(text)
        var compiler = StreamCompiler()
        program = try compiler.stream(syntax).program
        sources = compiler.sources
        initialStates = compiler.states
        operatorLabels = compiler.labels
        usesTime = compiler.usesTime
        usesFlatMap = compiler.states.contains { if case .flatMap = $0 { true } else { false } }
        stopSignals = compiler.stopSignals
    }
}

/// How many values a stream carries: one, or a list of `n` from combineLatest
/// that closures may take as `n` parameters.
enum Arity: Equatable {
    case single
    case tuple(Int)
}

/// Lowers ``StreamSyntax`` to a ``StreamProgram``.
struct StreamCompiler {
    var sources: [Key] = []
    var states: [OperatorState] = []
    var labels: [String] = []
    var usesTime = false
    /// Keys named by `takeUntil` and not read for their values.
    var stopSignals: [Key] = []

    mutating func stream(_ syntax: StreamSyntax) throws(BindingError) -> (program: StreamProgram, arity: Arity) {
        switch syntax {
        case .key(let key, _):
            stopSignals.removeAll { $0 == key }
            return (.source(sourceIndex(key)), .single)
        case .combineLatest(let arguments, _):
            var children: [StreamProgram] = []
            for argument in arguments { children.append(try stream(argument).program) }
            states.append(.combineLatest(CombineLatestState(count: children.count)))
            return (.combineLatest(children, slot: states.count - 1), .tuple(children.count))
        case .merge(let arguments, _):
            var children: [StreamProgram] = []
            for argument in arguments { children.append(try stream(argument).program) }
            return (.merge(children), .single)
        case .apply(let upstream, let syntax):
            let (program, arity) = try stream(upstream)
            let (step, state, output) = try self.step(syntax, arity: arity)
            labels.append(step.label)
            var slot = -1
            if let state {
                states.append(state)
                slot = states.count - 1
            }
            return (.step(program, step, slot: slot), output ?? arity)
        }
    }

    /// The compiled step, its initial state if it has one, and its output arity (`nil`: unchanged).
    private mutating func step(_ syntax: OperatorSyntax, arity: Arity) throws(BindingError)
        -> (Step, OperatorState?, Arity?)
    {
        switch syntax.kind {
        case .map(let closure):
            return (.map(try compile(closure, of: "map", arity: arity).0), nil, .single)
        case .filter(let closure):
            let (compiled, type) = try compile(closure, of: "filter", arity: arity)
            try Checker.require(type, .bool, "the predicate of filter", at: closure.body.location)
            return (.filter(compiled), .filter(FilterState()), nil)
        case .distinctUntilChanged:
            return (.distinctUntilChanged, .distinctUntilChanged(DistinctState()), nil)
        case .skip(let n):
            return (.skip(n), .skip(SkipState()), nil)
        case .take(let n):
            return (.take(n), .take(TakeState()), nil)
        case .startWith(let value):
            return (.startWith(try constant(value, of: "startWith")), nil, nil)
        case .catchTo(let value):
            return (.catchTo(try constant(value, of: "catchTo")), nil, nil)
        case .throttle(let milliseconds):
            usesTime = true
            return (.throttle(milliseconds: milliseconds), .throttle(ThrottleState()), nil)
        case .timeout(let milliseconds, let written):
            usesTime = true
            return (.timeout(milliseconds: milliseconds, written: written), .timeout(TimeoutState()), nil)
        case .delay(let milliseconds):
            usesTime = true
            return (.delay(milliseconds: milliseconds), .delay(DelayState()), nil)
        case .scan(let seedSyntax, let closure):
            let seed = try constant(seedSyntax, of: "scan")
            let compiled = try compile(closure, of: "scan", arity: arity, accumulator: true).0
            return (.scan(seed: seed, compiled), .scan(ScanState(accumulator: seed)), .single)
        case .flatMap(let closure):
            let (compiled, type) = try compile(closure, of: "flatMap", arity: arity, allowsKey: true)
            try Checker.require(type, [.string, .null], "the closure of flatMap (the key to follow)",
                at: closure.body.location)
            return (.flatMap(compiled), .flatMap(FlatMapState()), .single)
        case .takeUntil(let key, _):
            if !sources.contains(key) { stopSignals.append(key) }
            return (.takeUntil(key, source: sourceIndex(key)), .takeUntil(TakeUntilState()), nil)
        case .takeWhile(let closure):
            let (compiled, type) = try compile(closure, of: "takeWhile", arity: arity)
            try Checker.require(type, .bool, "the predicate of takeWhile", at: closure.body.location)
            return (.takeWhile(compiled), .takeWhile(TakeWhileState()), nil)
        case .skipWhile(let closure):
            let (compiled, type) = try compile(closure, of: "skipWhile", arity: arity)
            try Checker.require(type, .bool, "the predicate of skipWhile", at: closure.body.location)
            return (.skipWhile(compiled), .skipWhile(SkipWhileState()), nil)
        case .ignore(let value):
            return (.ignore(try constant(value, of: "ignore")), nil, nil)
        }
    }

    /// The index of `key` among the sources, adding it on first use.
    private mutating func sourceIndex(_ key: Key) -> Int {
        // Bindings name few keys: a linear search beats hashing here.
        if let index = sources.firstIndex(of: key) { return index }
        sources.append(key)
        return sources.count - 1
    }

    private func constant(_ syntax: ExpressionSyntax, of name: String) throws(BindingError) -> JSONValue {
        let scope = ExpressionScope(kind: .constant(operatorName: name), allowsKey: false)
        let (expression, _) = try scope.compile(syntax)
        guard let value = expression.constantValue else {
            throw .invalid("the argument of \(name) must be a constant value", at: syntax.location)
        }
        return value
    }

    private func compile(
        _ closure: ClosureSyntax, of name: String, arity: Arity, accumulator: Bool = false, allowsKey: Bool = false
    ) throws(BindingError) -> (Closure, ValueType) {
        let extra = accumulator ? 1 : 0
        let shape: Closure.Shape
        let scope: ExpressionScope
        if let parameters = closure.parameters {
            var seen = Set<String>()
            for name in parameters where name != "_" {
                guard seen.insert(name).inserted else {
                    throw .invalid("the parameter name '\(name)' is used twice", at: closure.location)
                }
            }
            let valueCount = parameters.count - extra
            let expected = accumulator ? "the accumulator and " : ""
            switch arity {
            case .single where valueCount == 1:
                shape = .whole
            case .tuple(let n) where valueCount == n:
                shape = .spread(n)
            case .tuple where valueCount == 1:
                shape = .whole
            case .single:
                throw .invalid("the closure of \(name) takes \(expected)1 value parameter, got \(max(0, valueCount))",
                    at: closure.location)
            case .tuple(let n):
                throw .invalid(
                    "after combineLatest of \(n) sources, the closure of \(name) takes \(expected)\(n) parameters "
                        + "(or 1 for the list of values), got \(max(0, valueCount))",
                    at: closure.location)
            }
            scope = ExpressionScope(kind: .named(parameters, operatorName: name), allowsKey: allowsKey)
        } else {
            let count: Int
            switch arity {
            case .single:
                shape = .whole
                count = 1 + extra
            case .tuple(let n):
                shape = .spread(n)
                count = n + extra
            }
            scope = ExpressionScope(kind: .anonymous(count: count, operatorName: name), allowsKey: allowsKey)
        }
        let (body, type) = try scope.compile(closure.body)
        return (Closure(body: body, shape: shape, takesAccumulator: accumulator, location: closure.body.location), type)
    }
}
