public import PropdJSON

/// A Varlink error reply: a fully qualified error name and its parameters.
///
/// Handlers throw it to answer a call with an error; ``VarlinkConnection``
/// throws it when the service answers with one.
///
/// ```swift
/// throw VarlinkCallError(name: "org.example.NotFound", parameters: ["key": "a"])
/// ```
public struct VarlinkCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The fully qualified error name, e.g. `org.varlink.service.MethodNotFound`.
    public var name: String
    public var parameters: [String: JSONValue]

    public init(name: String, parameters: [String: JSONValue] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    public var description: String {
        parameters.isEmpty ? name : "\(name)(\(JSONValue.object(parameters).jsonString))"
    }
}

extension VarlinkCallError {
    /// The standard errors of `org.varlink.service`.
    public static func interfaceNotFound(_ interface: String) -> VarlinkCallError {
        VarlinkCallError(name: "org.varlink.service.InterfaceNotFound", parameters: ["interface": .string(interface)])
    }

    public static func methodNotFound(_ method: String) -> VarlinkCallError {
        VarlinkCallError(name: "org.varlink.service.MethodNotFound", parameters: ["method": .string(method)])
    }

    public static func methodNotImplemented(_ method: String) -> VarlinkCallError {
        VarlinkCallError(name: "org.varlink.service.MethodNotImplemented", parameters: ["method": .string(method)])
    }

    public static func invalidParameter(_ parameter: String) -> VarlinkCallError {
        VarlinkCallError(name: "org.varlink.service.InvalidParameter", parameters: ["parameter": .string(parameter)])
    }

    public static let expectedMore = VarlinkCallError(name: "org.varlink.service.ExpectedMore")

    public static let permissionDenied = VarlinkCallError(name: "org.varlink.service.PermissionDenied")
}
