import PropdJSON

/// `org.varlink.service`, which every Varlink service implements.
enum VarlinkServiceInterface {
    static let name = "org.varlink.service"

    static let description = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the service does not
        # implement it.
        error MethodNotImplemented (method: string)

        # One of the passed parameters is invalid.
        error InvalidParameter (parameter: string)

        # Client is denied access
        error PermissionDenied ()

        # Method is expected to be called with 'more' set to true, but wasn't
        error ExpectedMore ()

        """

    /// The interface, answering from the registry it is part of. GetInfo's
    /// answer never changes, so it is built once.
    static func interface(info: VarlinkServiceInfo, interfaceNames: [String], descriptions: [String: String])
        -> VarlinkInterface
    {
        let infoReply: [String: JSONValue] = [
            "vendor": .string(info.vendor),
            "product": .string(info.product),
            "version": .string(info.version),
            "url": .string(info.url),
            "interfaces": .array(interfaceNames.map(JSONValue.string)),
        ]
        return VarlinkInterface(
            name: name,
            description: description,
            methods: [
                .synchronous("GetInfo") { _, _ in infoReply },
                .synchronous("GetInterfaceDescription") { call, _ in
                    let interface = try call.parameters.requiredString("interface")
                    guard let text = descriptions[interface] else { throw VarlinkCallError.interfaceNotFound(interface) }
                    return ["description": .string(text)]
                },
            ])
    }
}
