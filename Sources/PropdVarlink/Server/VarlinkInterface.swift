/// An interface a service implements: its name, its IDL text (served verbatim
/// by `org.varlink.service.GetInterfaceDescription`) and its methods.
///
/// ```swift
/// let ping = VarlinkInterface(
///     name: "org.example.ping",
///     description: "interface org.example.ping\nmethod Ping(ping: string) -> (pong: string)\n",
///     methods: [.synchronous("Ping") { call, _ in ["pong": call.parameters["ping"] ?? nil] }]
/// )
/// ```
public struct VarlinkInterface: Sendable {
    public let name: String
    public let description: String
    public let methods: [VarlinkMethod]

    public init(name: String, description: String, methods: [VarlinkMethod]) {
        self.name = name
        self.description = description
        self.methods = methods
    }

    /// The names of the methods the IDL text declares (`method Name(`),
    /// used to tell MethodNotImplemented from MethodNotFound.
    var declaredMethodNames: Set<String> {
        var names: Set<String> = []
        for line in description.split(separator: "\n") {
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            guard trimmed.hasPrefix("method ") else { continue }
            let rest = trimmed.dropFirst("method ".count).drop(while: { $0 == " " })
            let name = rest.prefix(while: { $0.isLetter || $0.isNumber })
            if !name.isEmpty { names.insert(String(name)) }
        }
        return names
    }
}

/// What `org.varlink.service.GetInfo` says about the service.
public struct VarlinkServiceInfo: Sendable, Equatable {
    public var vendor: String
    public var product: String
    public var version: String
    public var url: String

    public init(vendor: String, product: String, version: String, url: String) {
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
    }
}

/// Why a set of interfaces cannot be served together.
public struct VarlinkRegistrationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case duplicateInterface
        case duplicateMethod
        case reservedInterface
    }

    public var code: Code
    /// The interface, or the fully qualified method, at fault.
    public var name: String

    public init(code: Code, name: String) {
        self.code = code
        self.name = name
    }

    public var description: String {
        switch code {
        case .duplicateInterface: return "interface \(name) is registered twice"
        case .duplicateMethod: return "method \(name) is registered twice"
        case .reservedInterface: return "interface \(name) is provided by PropdVarlink itself"
        }
    }
}
