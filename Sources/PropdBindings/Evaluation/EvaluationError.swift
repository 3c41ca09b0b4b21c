/// Why a binding's evaluation failed at run time. The message is what the
/// property's `error` shows, e.g. `division by zero at 1:22`.
struct EvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case typeMismatch
        case divisionByZero
        /// An object has no such member: `??` catches it.
        case missingField
        /// An index past the end of an array: `??` catches it.
        case indexOutOfRange
        case notFinite
        case invalidKey
        case invalidConversion
        case cycle
        /// A value built beyond ``BindingLimits/maxValueBytes``.
        case valueTooLarge
        /// Work beyond ``BindingLimits/maxEvaluationSteps``.
        case evaluationTooLong
    }

    var kind: Kind
    var reason: String
    var location: SourceLocation

    var description: String { "\(reason) at \(location)" }

    /// Missing data that `a ?? b` replaces with `b`.
    var isMissing: Bool { kind == .missingField || kind == .indexOutOfRange }
}
