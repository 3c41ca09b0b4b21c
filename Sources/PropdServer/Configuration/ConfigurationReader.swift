import Yams

/// Typed access to the YAML nodes of one config file; every failure becomes a
/// ``ConfigurationError`` at the node's line and column.
struct ConfigurationReader {
    let file: String

    /// Composes the document; nil for an empty file (or only comments).
    func document(_ text: String) throws(ConfigurationError) -> Node? {
        do {
            return try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw translate(error)
        } catch {
            throw ConfigurationError(file: file, problem: .syntax(String(describing: error)))
        }
    }

    func error(at node: Node?, _ problem: ConfigurationError.Problem) -> ConfigurationError {
        ConfigurationError(file: file, line: node?.mark?.line, column: node?.mark?.column, problem: problem)
    }

    /// The entries of a mapping, in file order, after checking every key is one of `allowed`.
    func entries(
        _ node: Node, of name: String, allowed: [String]
    ) throws(ConfigurationError) -> [(key: String, value: Node)] {
        guard case .mapping(let mapping) = node else {
            throw error(at: node, .wrongType(key: name, expected: "a mapping of keys to values", actual: describe(node)))
        }
        var seen: Set<String> = []
        var result: [(key: String, value: Node)] = []
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                throw error(at: keyNode, .wrongType(key: "a key in \(name)", expected: "a plain name", actual: describe(keyNode)))
            }
            let key = scalar.string
            guard allowed.contains(key) else { throw error(at: keyNode, .unknownKey(key, allowed: allowed)) }
            guard seen.insert(key).inserted else { throw error(at: keyNode, .duplicateKey(key)) }
            result.append((key, value))
        }
        return result
    }

    func string(_ node: Node, key: String) throws(ConfigurationError) -> String {
        guard case .scalar(let scalar) = node, node.tag.description == Tag.Name.str.rawValue else {
            throw error(at: node, .wrongType(key: key, expected: "a string", actual: describe(node)))
        }
        return scalar.string
    }

    /// A decimal integer (YAML's octal, hex and sexagesimal forms are refused:
    /// `max-connections: 010` meaning 8 would surprise everyone).
    func integer(_ node: Node, key: String) throws(ConfigurationError) -> Int {
        guard case .scalar(let scalar) = node, node.tag.description == Tag.Name.int.rawValue else {
            throw error(at: node, .wrongType(key: key, expected: "an integer", actual: describe(node)))
        }
        let digits = scalar.string.filter { $0 != "_" }
        guard let value = Int(digits, radix: 10) else {
            throw error(at: node, .invalidValue(key: key, value: scalar.string, reason: "is not a decimal integer in range"))
        }
        return value
    }

    func integer(_ node: Node, key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        let value = try integer(node, key: key)
        guard range.contains(value) else {
            throw error(
                at: node,
                .invalidValue(key: key, value: String(value), reason: "is out of range; expected \(range.lowerBound)...\(range.upperBound)"))
        }
        return value
    }

    func list(_ node: Node, key: String) throws(ConfigurationError) -> [Node] {
        guard case .sequence(let sequence) = node else {
            throw error(at: node, .wrongType(key: key, expected: "a list", actual: describe(node)))
        }
        return Array(sequence)
    }

    /// How a node's type reads in a message: "an integer (42)", "a list", …
    func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            let shown = String(reflecting: scalar.string)
            switch node.tag.description {
            case Tag.Name.str.rawValue: return "a string (\(shown))"
            case Tag.Name.int.rawValue: return "an integer (\(scalar.string))"
            case Tag.Name.float.rawValue: return "a number with a fraction (\(scalar.string))"
            case Tag.Name.bool.rawValue: return "a boolean (\(scalar.string); quote it to make it a string)"
            case Tag.Name.null.rawValue: return "empty"
            case Tag.Name.timestamp.rawValue: return "a timestamp (\(scalar.string); quote it to make it a string)"
            default: return "a value tagged \(node.tag.description) (\(shown))"
            }
        }
    }

    private func translate(_ error: YamlError) -> ConfigurationError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let text = context.map { "\(problem) (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? problem
            return ConfigurationError(file: file, line: mark.line, column: mark.column, problem: .syntax(text))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigurationError(
                file: file, line: context.mark.line, column: context.mark.column,
                problem: .duplicateKey(duplicates.first ?? ""))
        case .reader(let problem, _, _, _):
            return ConfigurationError(file: file, problem: .unreadable(reason: problem))
        default:
            return ConfigurationError(file: file, problem: .syntax(String(describing: error)))
        }
    }
}
