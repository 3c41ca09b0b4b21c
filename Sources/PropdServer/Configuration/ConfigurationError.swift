/// Why the daemon's configuration cannot be used; the daemon does not start
/// (and a SIGHUP reload changes nothing). Printed as `FILE:LINE:COLUMN: message`,
/// like a compiler, so editors jump to it.
///
/// ```
/// /etc/propd/propd.conf:4:13: durability must be "full" or "normal", not "fast"
/// ```
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// `--config FILE` names a file that does not exist.
        case fileNotFound
        /// The file exists but cannot be read, or is not UTF-8.
        case unreadable(reason: String)
        /// The YAML itself is malformed (as libyaml words it).
        case syntax(String)
        /// A key propd does not know; `allowed` lists the keys valid there.
        case unknownKey(String, allowed: [String])
        /// A key given twice in one mapping.
        case duplicateKey(String)
        /// A value of the wrong YAML type, e.g. a string where a number belongs.
        case wrongType(key: String, expected: String, actual: String)
        /// A value of the right type outside what the key accepts.
        case invalidValue(key: String, value: String, reason: String)
        /// A key pattern of an access rule that is not a valid pattern.
        case invalidPattern(pattern: String, reason: String)
        /// A user name that the user database does not know.
        case unknownUser(String)
        /// A group name that the group database does not know.
        case unknownGroup(String)
        /// A required key is missing, e.g. an access rule without `users` or `groups`.
        case missingKey(String, in: String)
        /// A command-line flag's (or `PROPD_SOCKET`'s, or a default path's) value is unusable.
        case invalidFlag(flag: String, value: String, reason: String)
    }

    /// The config file, or nil for a problem with a flag or `PROPD_SOCKET`.
    public var file: String?
    /// 1-based, when the problem has a place in the file.
    public var line: Int?
    public var column: Int?
    public var problem: Problem

    public init(file: String?, line: Int? = nil, column: Int? = nil, problem: Problem) {
        self.file = file
        self.line = line
        self.column = column
        self.problem = problem
    }

    /// `FILE:LINE:COLUMN: message` (the parts that are known); just the
    /// message for a flag or environment variable, which it names.
    public var description: String {
        guard var place = file else { return message }
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): \(message)"
    }

    /// The message without the place.
    public var message: String {
        switch problem {
        case .fileNotFound: return "config file not found"
        case .unreadable(let reason): return "cannot read the config file: \(reason)"
        case .syntax(let text): return "not valid YAML: \(text)"
        case .unknownKey(let key, let allowed):
            return "unknown key \(quoted(key)); expected one of: \(allowed.joined(separator: ", "))"
        case .duplicateKey(let key): return "key \(quoted(key)) is given more than once"
        case .wrongType(let key, let expected, let actual): return "\(key) must be \(expected), not \(actual)"
        case .invalidValue(let key, let value, let reason): return "\(key) \(quoted(value)) \(reason)"
        case .invalidPattern(let pattern, let reason): return "invalid key pattern \(quoted(pattern)): \(reason)"
        case .unknownUser(let name): return "unknown user \(quoted(name))"
        case .unknownGroup(let name): return "unknown group \(quoted(name))"
        case .missingKey(let key, let place): return "\(place) needs \(key)"
        case .invalidFlag(let flag, let value, let reason): return "\(flag) \(quoted(value)) \(reason)"
        }
    }

    private func quoted(_ text: String) -> String { String(reflecting: text) }
}
