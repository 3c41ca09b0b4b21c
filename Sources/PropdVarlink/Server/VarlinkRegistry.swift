/// The methods a server answers, by fully qualified name. Built once, read
/// without locks by every connection.
struct VarlinkRegistry: Sendable {
    private let methods: [String: VarlinkMethod]
    /// The methods with a direct decoder that a call may name without `more`.
    private let directMethods: [String: VarlinkDirectMethod]
    /// Interface name -> method names its IDL declares.
    private let declared: [String: Set<String>]
    let interfaceNames: [String]

    init(info: VarlinkServiceInfo, interfaces: [VarlinkInterface]) throws(VarlinkRegistrationError) {
        var descriptions: [String: String] = [VarlinkServiceInterface.name: VarlinkServiceInterface.description]
        var names = [VarlinkServiceInterface.name]
        for interface in interfaces {
            if interface.name == VarlinkServiceInterface.name {
                throw VarlinkRegistrationError(code: .reservedInterface, name: interface.name)
            }
            if descriptions[interface.name] != nil {
                throw VarlinkRegistrationError(code: .duplicateInterface, name: interface.name)
            }
            descriptions[interface.name] = interface.description
            names.append(interface.name)
        }
        let service = VarlinkServiceInterface.interface(info: info, interfaceNames: names, descriptions: descriptions)
        var methods: [String: VarlinkMethod] = [:]
        var declared: [String: Set<String>] = [:]
        for interface in [service] + interfaces {
            declared[interface.name] = interface.declaredMethodNames
            for method in interface.methods {
                let qualified = interface.name + "." + method.name
                if methods[qualified] != nil { throw VarlinkRegistrationError(code: .duplicateMethod, name: qualified) }
                methods[qualified] = method
            }
        }
        self.methods = methods
        self.directMethods = methods.reduce(into: [:]) { direct, entry in
            direct[entry.key] = VarlinkDirectMethod(entry.value, named: entry.key)
        }
        self.declared = declared
        self.interfaceNames = names
    }

    /// What a call of `method` decoded straight from its frame needs, when
    /// the method has a direct decoder and answers without `more`.
    func directMethod(_ method: String) -> VarlinkDirectMethod? {
        directMethods[method]
    }

    /// The method to run, or the standard error explaining why there is none.
    func resolve(_ method: String) -> Result<VarlinkMethod, VarlinkCallError> {
        if let found = methods[method] { return .success(found) }
        guard let dot = method.lastIndex(of: ".") else { return .failure(.interfaceNotFound(method)) }
        let interface = String(method[..<dot])
        guard let names = declared[interface] else { return .failure(.interfaceNotFound(interface)) }
        if names.contains(String(method[method.index(after: dot)...])) {
            return .failure(.methodNotImplemented(method))
        }
        return .failure(.methodNotFound(method))
    }
}
