import PropdCore

/// The names visible to an expression and the rules that come with them:
/// inside a closure only its parameters; in an operator's argument none.
/// Compiles an expression, resolving parameters to frame slots, checking
/// types and folding constant parts.
struct ExpressionScope {
    enum Kind {
        case named([String], operatorName: String)
        case anonymous(count: Int, operatorName: String)
        case constant(operatorName: String)
    }

    var kind: Kind
    var allowsKey: Bool

    func compile(_ syntax: ExpressionSyntax) throws(BindingError) -> (Expression, ValueType) {
        let location = syntax.location
        switch syntax.kind {
        case .literal(let value):
            return (.constant(value), ValueType(of: value))
        case .name(let name):
            return (.parameter(try slot(of: name, at: location)), .any)
        case .dollar(let index):
            return (.parameter(try slot(ofDollar: index, at: location)), .any)
        case .array(let elements):
            var compiled: [Expression] = []
            for element in elements { compiled.append(try compile(element).0) }
            return (fold(.array(compiled), compiled), .array)
        case .object(let members):
            var compiled: [(String, Expression)] = []
            for (name, member) in members { compiled.append((name, try compile(member).0)) }
            return (fold(.object(compiled), compiled.map(\.1)), .object)
        case .unary(let op, let operand):
            let (value, type) = try compile(operand)
            let result = try Checker.unary(op, type, at: location)
            let expression: Expression = op == .not ? .not(value, location) : .negate(value, location)
            return (try evaluateIfConstant(expression, [value]), result)
        case .binary(let op, let lhs, let rhs):
            let (left, leftType) = try compile(lhs)
            let (right, rightType) = try compile(rhs)
            let result = try Checker.binary(op, leftType, rightType, at: location)
            return (try evaluateIfConstant(.binary(op, left, right, location), [left, right]), result)
        case .conditional(let condition, let whenTrue, let whenFalse):
            let (c, conditionType) = try compile(condition)
            try Checker.require(conditionType, .bool, "the condition of '? :'", at: location)
            let (a, aType) = try compile(whenTrue)
            let (b, bType) = try compile(whenFalse)
            return (try evaluateIfConstant(.conditional(c, a, b, location), [c, a, b]), aType.union(bType))
        case .member(let base, let name):
            let (value, type) = try compile(base)
            try Checker.require(type, .object, "the value before '.\(name)'", at: location)
            return (try evaluateIfConstant(.member(value, name, location), [value]), .any)
        case .index(let base, let index):
            let (value, type) = try compile(base)
            let (position, positionType) = try compile(index)
            try Checker.require(type, [.array, .object], "the value before '[…]'", at: location)
            try Checker.require(positionType, [.number, .string], "an index", at: location)
            return (try evaluateIfConstant(.index(value, position, location), [value, position]), .any)
        case .call(let name, let arguments):
            guard let function = Function(rawValue: name) else {
                throw .invalid(
                    "unknown function '\(name)'; the functions are "
                        + Function.allCases.map(\.rawValue).joined(separator: ", "), at: location)
            }
            if function == .key && !allowsKey {
                throw .invalid("key(…) can only be used in the closure of flatMap, to name the key to follow",
                    at: location)
            }
            var compiled: [Expression] = []
            var types: [ValueType] = []
            for argument in arguments {
                let (value, type) = try compile(argument)
                compiled.append(value)
                types.append(type)
            }
            let result = try Checker.call(function, types, at: location)
            return (try evaluateIfConstant(.call(function, compiled, location), compiled), result)
        }
    }

    private func fold(_ expression: Expression, _ children: [Expression]) -> Expression {
        guard children.allSatisfy({ $0.constantValue != nil }) else { return expression }
        var budget = EvaluationBudget(.defaults, at: .start)
        return (try? expression.evaluate(.empty, &budget)).map(Expression.constant) ?? expression
    }

    /// Evaluates an expression whose operands are all constants now, so that
    /// `1 / 0` or `len(5)` are refused when the binding is declared.
    private func evaluateIfConstant(_ expression: Expression, _ children: [Expression]) throws(BindingError)
        -> Expression
    {
        guard children.allSatisfy({ $0.constantValue != nil }) else { return expression }
        var budget = EvaluationBudget(.defaults, at: .start)
        do {
            return .constant(try expression.evaluate(.empty, &budget))
        } catch {
            throw .invalid(error.reason, at: error.location)
        }
    }

    private func slot(of name: String, at location: SourceLocation) throws(BindingError) -> Int {
        switch kind {
        case .named(let parameters, _):
            if name != "_", let index = parameters.firstIndex(of: name) { return index }
            let visible = parameters.filter { $0 != "_" }
            throw .invalid(
                "unknown name '\(name)'; inside this closure the only names are its parameters"
                    + (visible.isEmpty ? " (none are named)" : " (\(visible.joined(separator: ", ")))")
                    + "; keys are read outside closures, e.g. combineLatest(a, b).map { x, y in … }",
                at: location)
        case .anonymous(let count, _):
            throw .invalid(
                "unknown name '\(name)'; this closure names no parameters: use $0\(count > 1 ? "…$\(count - 1)" : "") "
                    + "or write { x in … }; keys are read outside closures", at: location)
        case .constant(let operatorName):
            throw .invalid("unknown name '\(name)'; the argument of \(operatorName) must be a constant value",
                at: location)
        }
    }

    private func slot(ofDollar index: Int, at location: SourceLocation) throws(BindingError) -> Int {
        switch kind {
        case .named:
            throw .invalid("$\(index) cannot be used in a closure that names its parameters", at: location)
        case .anonymous(let count, let operatorName):
            guard index < count else {
                throw .invalid("$\(index) is out of range: the closure of \(operatorName) has \(count) "
                    + "parameter\(count == 1 ? "" : "s") ($0\(count > 1 ? "…$\(count - 1)" : ""))", at: location)
            }
            return index
        case .constant(let operatorName):
            throw .invalid("$\(index) is not available here; the argument of \(operatorName) must be a constant value",
                at: location)
        }
    }
}
