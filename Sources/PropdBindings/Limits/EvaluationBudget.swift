import PropdCore

/// The work and size left to one closure call. Every operation takes a step;
/// operations that read or build data in proportion to its size pay that
/// size too, so a closure over a large value runs out before it runs long.
/// A value built is admitted only while its JSON text stays within
/// ``BindingLimits/maxValueBytes``, so no evaluation holds a giant value.
struct EvaluationBudget {
    private(set) var remaining: Int
    let maxValueBytes: Int
    private let maxSteps: Int
    /// Where the closure starts: errors of operations without a position of their own.
    let location: SourceLocation

    init(_ limits: BindingLimits, at location: SourceLocation) {
        self.location = location
        remaining = limits.maxEvaluationSteps
        maxSteps = limits.maxEvaluationSteps
        maxValueBytes = limits.maxValueBytes
    }

    /// One operation.
    @inline(__always)
    mutating func step() throws(EvaluationError) {
        remaining &-= 1
        if remaining < 0 { throw tooLong(at: location) }
    }

    /// An operation that reads `value` whole (comparison, `len`, `contains`…).
    mutating func read(_ value: JSONValue, at location: SourceLocation) throws(EvaluationError) {
        if value.isScalar { return }
        let size = value.approximateJSONSize(upTo: remaining &+ 1)
        remaining &-= size.bytes
        if remaining < 0 { throw tooLong(at: location) }
    }

    /// A value an operation built: refused when too large, paid for by its size.
    @discardableResult
    mutating func admit(_ value: JSONValue, at location: SourceLocation) throws(EvaluationError) -> JSONValue {
        if value.isScalar { return value }
        let size = value.approximateJSONSize(upTo: maxValueBytes &+ 1)
        if size.depth > BindingLimits.maxDepth {
            throw EvaluationError(kind: .valueTooLarge,
                reason: "value too large: nested deeper than \(BindingLimits.maxDepth) levels", location: location)
        }
        if size.bytes > maxValueBytes {
            throw EvaluationError(kind: .valueTooLarge,
                reason: "value too large: more than \(maxValueBytes) bytes", location: location)
        }
        remaining &-= size.bytes
        if remaining < 0 { throw tooLong(at: location) }
        return value
    }

    private func tooLong(at location: SourceLocation) -> EvaluationError {
        EvaluationError(kind: .evaluationTooLong,
            reason: "evaluation too long: more than \(maxSteps) steps", location: location)
    }
}

extension JSONValue {
    /// Null, bools and numbers: values whose size is small and fixed.
    var isScalar: Bool {
        switch self {
        case .null, .bool, .integer, .double: return true
        case .string, .array, .object: return false
        }
    }

    /// About the length of the value's JSON text (escapes not counted) and its
    /// nesting depth, walking no further than `limit` bytes or the depth
    /// limit: values share their parts in memory, so a small value may stand
    /// for an enormous text, and the walk must not pay for all of it.
    func approximateJSONSize(upTo limit: Int) -> (bytes: Int, depth: Int) {
        var bytes = 0
        var deepest = 0
        func walk(_ value: JSONValue, _ depth: Int) {
            if bytes > limit || deepest > BindingLimits.maxDepth { return }
            deepest = Swift.max(deepest, depth)
            switch value {
            case .null, .bool: bytes &+= 5
            case .integer, .double: bytes &+= 8
            case .string(let s): bytes &+= s.utf8.count &+ 2
            case .array(let elements):
                bytes &+= 2 &+ elements.count
                for element in elements {
                    walk(element, depth + 1)
                    if bytes > limit || deepest > BindingLimits.maxDepth { return }
                }
            case .object(let members):
                bytes &+= 2 &+ members.count
                for (name, member) in members {
                    bytes &+= name.utf8.count &+ 3
                    walk(member, depth + 1)
                    if bytes > limit || deepest > BindingLimits.maxDepth { return }
                }
            }
        }
        walk(self, 1)
        return (bytes, deepest)
    }
}
