import PropdCore

/// Why a predicate gave no verdict: the message of the error state it causes.
struct PredicateFailure: Error, Sendable, Equatable {
    var message: String
}

extension Closure {
    /// Runs the closure as the predicate of `operatorName` (`takeWhile`,
    /// `skipWhile`): its bool, or why it has none (an evaluation error, or a
    /// result that is not a bool).
    func test(_ value: JSONValue, of operatorName: String) -> Result<Bool, PredicateFailure> {
        let verdict: JSONValue
        do {
            verdict = try call(value)
        } catch {
            return .failure(PredicateFailure(message: error.description))
        }
        guard case .bool(let holds) = verdict else {
            return .failure(PredicateFailure(
                message: "the predicate of \(operatorName) must return a bool, got \(verdict.typeName) at \(location)"))
        }
        return .success(holds)
    }
}
