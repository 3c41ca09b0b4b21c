import PropdCore

extension Function {
    /// Applies the function to evaluated arguments (their count is checked at compile time).
    func apply(_ arguments: [JSONValue], at location: SourceLocation) throws(EvaluationError) -> JSONValue {
        func mismatch(_ expected: String, _ value: JSONValue) -> EvaluationError {
            EvaluationError(kind: .typeMismatch, reason: "\(rawValue) expects \(expected), got \(value.typeName)",
                location: location)
        }
        func number(_ value: JSONValue) throws(EvaluationError) -> Double {
            guard let d = value.doubleValue else { throw mismatch("a number", value) }
            return d
        }
        let first = arguments[0]
        switch self {
        case .len:
            switch first {
            case .string(let s): return .integer(Int64(s.count))
            case .array(let a): return .integer(Int64(a.count))
            case .object(let o): return .integer(Int64(o.count))
            default: throw mismatch("a string, array or object", first)
            }
        case .abs:
            if case .integer(let i) = first, i != Int64.min { return .integer(Swift.abs(i)) }
            return .number(Swift.abs(try number(first)))
        case .floor: return .number(try number(first).rounded(.down))
        case .ceil: return .number(try number(first).rounded(.up))
        case .round:
            let value = try number(first)
            guard arguments.count == 2 else { return .number(value.rounded()) }
            let digits = try number(arguments[1])
            guard digits.rounded() == digits, (0...15).contains(digits) else {
                throw EvaluationError(kind: .typeMismatch,
                    reason: "round's number of digits must be a whole number from 0 to 15", location: location)
            }
            let scale = pow10(Int(digits))
            let rounded = (value * scale).rounded() / scale
            return rounded.isFinite ? .number(rounded) : .number(value)
        case .min, .max:
            var values = arguments
            if arguments.count == 1 {
                guard case .array(let elements) = first, !elements.isEmpty else {
                    throw mismatch("several numbers or a non-empty array of numbers", first)
                }
                values = elements
            }
            var best = values[0]
            for candidate in values.dropFirst() {
                if try Arithmetic.compare(self == .min ? .less : .greater, candidate, best, at: location) {
                    best = candidate
                }
            }
            if values.count == 1 { _ = try Arithmetic.compare(.less, best, best, at: location) }
            return best
        case .lower, .upper:
            guard case .string(let s) = first else { throw mismatch("a string", first) }
            return .string(self == .lower ? s.lowercased() : s.uppercased())
        case .contains:
            let needle = arguments[1]
            switch first {
            case .string(let s):
                guard case .string(let part) = needle else { throw mismatch("a string to look for in a string", needle) }
                return .bool(part.isEmpty || s.contains(part))
            case .array(let elements): return .bool(elements.contains(needle))
            case .object(let members):
                guard case .string(let name) = needle else { throw mismatch("a member name (a string)", needle) }
                return .bool(members[name] != nil)
            default: throw mismatch("a string, array or object to look in", first)
            }
        case .string:
            if case .string = first { return first }
            return .string(first.jsonString)
        case .number:
            switch first {
            case .integer, .double: return first
            case .bool(let b): return .integer(b ? 1 : 0)
            case .string(let s):
                let trimmed = s.trimmingJSONWhitespace()
                if let parsed = try? JSONValue(parsing: trimmed), parsed.doubleValue != nil { return parsed }
                throw EvaluationError(kind: .invalidConversion,
                    reason: "cannot convert the string \(first.jsonString) to a number", location: location)
            default: throw mismatch("a string, number or bool", first)
            }
        case .key:
            guard case .string(let s) = first else { throw mismatch("a string", first) }
            do {
                _ = try Key(s)
            } catch {
                throw EvaluationError(kind: .invalidKey,
                    reason: "key(\(first.jsonString)) is not a valid key: it \(error)", location: location)
            }
            return first
        }
    }

    private func pow10(_ n: Int) -> Double {
        var result = 1.0
        for _ in 0..<n { result *= 10 }
        return result
    }
}

extension String {
    func trimmingJSONWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
