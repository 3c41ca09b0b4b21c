public import Logging
import PropdCore
import Yams

/// The settings one config file gives (nil: not given), with access rules
/// already resolved to numeric ids.
///
/// The format is YAML; `examples/propd.conf` documents every key:
/// ```yaml
/// socket: /run/propd/propd.sock
/// durability: full
/// history-per-key: 100
/// limits:
///   max-connections: 1024
/// access:
///   - groups: [kiosk]
///     read: ["ui.**"]
/// ```
public struct ConfigurationFile: Sendable {
    public var socket: String?
    public var database: String?
    public var bindings: String?
    public var durability: Durability?
    public var historyPerKey: Int?
    public var logLevel: Logger.Level?
    public var limits: [ConfigurationLimits.Limit: Int] = [:]
    public var access: [AccessRule] = []
    /// The `cluster:` section: the space in etcd instead of SQLite.
    public var cluster: ClusterSettings?
    /// Settings given that have no effect, as `limits.NAME: why`
    /// (``ConfigurationLimits/retired``): the daemon logs each as a warning.
    public var ignored: [String] = []

    public init() {}

    static let topLevelKeys = [
        "socket", "database", "bindings", "durability", "history-per-key", "log-level", "limits", "access",
        "cluster",
    ]
    static let ruleKeys = ["users", "groups", "read", "write"]
    /// Accepted by `history-per-key` here and by `--history-per-key`.
    public static let historyPerKeyRange = 1...10_000_000
    /// `sun_path` holds 108 bytes, one of which is the terminating NUL.
    public static let maximumSocketPathBytes = 107

    /// Parses and checks a whole file; the first problem found is thrown, so a
    /// daemon never starts on part of a file.
    public static func parse(
        _ text: String, path: String, directory: any AccountDirectory = SystemAccountDirectory()
    ) throws(ConfigurationError) -> ConfigurationFile {
        let reader = ConfigurationReader(file: path)
        var file = ConfigurationFile()
        guard let root = try reader.document(text) else { return file }
        if case .scalar = root, root.tag.description == Tag.Name.null.rawValue { return file }
        for (key, value) in try reader.entries(root, of: "the config file", allowed: topLevelKeys) {
            switch key {
            case "socket":
                let socket = try absolutePath(value, key: key, reader)
                guard socket.utf8.count <= maximumSocketPathBytes else {
                    throw reader.error(
                        at: value,
                        .invalidValue(key: key, value: socket, reason: "is \(socket.utf8.count) bytes; a Unix socket path holds at most \(maximumSocketPathBytes)"))
                }
                file.socket = socket
            case "database": file.database = try absolutePath(value, key: key, reader)
            case "bindings": file.bindings = try absolutePath(value, key: key, reader)
            case "durability":
                let text = try reader.string(value, key: key)
                guard let durability = Durability(rawValue: text) else {
                    throw reader.error(at: value, .invalidValue(key: key, value: text, reason: "is not a durability; expected \"full\" or \"normal\""))
                }
                file.durability = durability
            case "history-per-key":
                file.historyPerKey = try reader.integer(value, key: key, in: historyPerKeyRange)
            case "log-level":
                let text = try reader.string(value, key: key)
                guard let level = Logger.Level(rawValue: text) else {
                    let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                    throw reader.error(at: value, .invalidValue(key: key, value: text, reason: "is not a log level; expected one of \(names)"))
                }
                file.logLevel = level
            case "limits":
                let names = ConfigurationLimits.Limit.allCases.map(\.rawValue) + ConfigurationLimits.retired.keys.sorted()
                for (name, limitValue) in try reader.entries(value, of: "limits", allowed: names) {
                    guard let limit = ConfigurationLimits.Limit(rawValue: name) else {
                        // Still a number, as it had to be when it had an effect.
                        _ = try reader.integer(limitValue, key: "limits.\(name)", in: 1...1_000_000)
                        file.ignored.append("limits.\(name) has no effect: \(ConfigurationLimits.retired[name] ?? "")")
                        continue
                    }
                    file.limits[limit] = try reader.integer(limitValue, key: "limits.\(name)", in: limit.allowedRange)
                }
            case "cluster":
                file.cluster = try ClusterSettings.parse(value, reader)
            default:  // "access"
                let rules = try reader.list(value, key: key)
                file.access = try rules.enumerated().map { (index, rule) throws(ConfigurationError) in
                    try accessRule(rule, name: "access[\(index)]", reader, directory)
                }
            }
        }
        return file
    }

    private static func absolutePath(_ node: Node, key: String, _ reader: ConfigurationReader) throws(ConfigurationError) -> String {
        let path = try reader.string(node, key: key)
        guard path.hasPrefix("/") else {
            throw reader.error(at: node, .invalidValue(key: key, value: path, reason: "is not an absolute path"))
        }
        return path
    }

    private static func accessRule(
        _ node: Node, name: String, _ reader: ConfigurationReader, _ directory: any AccountDirectory
    ) throws(ConfigurationError) -> AccessRule {
        var rule = AccessRule(subjects: [])
        if let mark = node.mark { rule.origin = "\(reader.file):\(mark.line)" }
        var hasGrant = false
        for (key, value) in try reader.entries(node, of: name, allowed: ruleKeys) {
            let items = try reader.list(value, key: "\(name).\(key)")
            for (index, item) in items.enumerated() {
                let itemName = "\(name).\(key)[\(index)]"
                switch key {
                case "users": rule.subjects.append(try user(item, key: itemName, reader, directory))
                case "groups": rule.subjects.append(try group(item, key: itemName, reader, directory))
                case "read": rule.read.append(try pattern(item, key: itemName, reader))
                default: rule.write.append(try pattern(item, key: itemName, reader))
                }
            }
            if key == "read" || key == "write" { hasGrant = true }
        }
        guard !rule.subjects.isEmpty else { throw reader.error(at: node, .missingKey("users or groups (a non-empty list)", in: name)) }
        guard hasGrant else { throw reader.error(at: node, .missingKey("read or write", in: name)) }
        return rule
    }

    private static func pattern(_ node: Node, key: String, _ reader: ConfigurationReader) throws(ConfigurationError) -> KeyPattern {
        let text = try reader.string(node, key: key)
        do {
            return try KeyPattern(text)
        } catch {
            throw reader.error(at: node, .invalidPattern(pattern: text, reason: error.description))
        }
    }

    private static func user(
        _ node: Node, key: String, _ reader: ConfigurationReader, _ directory: any AccountDirectory
    ) throws(ConfigurationError) -> AccessSubject {
        if case .scalar(let scalar) = node, scalar.string == "*", node.tag.description == Tag.Name.str.rawValue {
            return .everyone
        }
        switch try account(node, key: key, kind: "user", reader) {
        case .id(let uid): return .user(uid)
        case .name(let name):
            guard let uid = directory.userID(named: name) else { throw reader.error(at: node, .unknownUser(name)) }
            return .user(uid)
        }
    }

    private static func group(
        _ node: Node, key: String, _ reader: ConfigurationReader, _ directory: any AccountDirectory
    ) throws(ConfigurationError) -> AccessSubject {
        switch try account(node, key: key, kind: "group", reader) {
        case .id(let gid): return .group(gid)
        case .name(let name):
            guard let gid = directory.groupID(named: name) else { throw reader.error(at: node, .unknownGroup(name)) }
            return .group(gid)
        }
    }

    private enum Account {
        case id(UInt32)
        case name(String)
    }

    /// A user or group given by number (`1001` or `"1001"`, as chown takes it) or by name.
    private static func account(_ node: Node, key: String, kind: String, _ reader: ConfigurationReader) throws(ConfigurationError) -> Account {
        let text: String
        if case .scalar(let scalar) = node, node.tag.description == Tag.Name.int.rawValue {
            text = scalar.string
        } else if case .scalar(let scalar) = node, node.tag.description == Tag.Name.str.rawValue {
            text = scalar.string
        } else {
            throw reader.error(at: node, .wrongType(key: key, expected: "a \(kind) name or id", actual: reader.describe(node)))
        }
        if let first = text.first, first.isASCII, first.isNumber || first == "-" || first == "+" {
            // 4294967295 is (uid_t)-1, "no user" to the kernel.
            guard let id = UInt32(text), id != UInt32.max else {
                throw reader.error(at: node, .invalidValue(key: key, value: text, reason: "is not a valid \(kind) id"))
            }
            return .id(id)
        }
        guard !text.isEmpty else {
            throw reader.error(at: node, .invalidValue(key: key, value: text, reason: "is an empty \(kind) name"))
        }
        return .name(text)
    }
}
