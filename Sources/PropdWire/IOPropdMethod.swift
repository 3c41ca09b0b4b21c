/// io.propd's methods, named as the IDL (`schema/io.propd.varlink`) declares them.
public enum IOPropdMethod: String, Sendable, CaseIterable {
    case get = "Get"
    case list = "List"
    case set = "Set"
    case delete = "Delete"
    case subscribe = "Subscribe"
    case history = "History"
    case bind = "Bind"
    case unbind = "Unbind"
    case bindings = "Bindings"
    case reload = "Reload"
    case stats = "Stats"
    case execute = "Execute"
    case serve = "Serve"
    case complete = "Complete"

    /// The interface's name, `io.propd`.
    public static let interface = "io.propd"

    /// The method's name on the wire: `io.propd.Get`.
    public var qualifiedName: String { Self.interface + "." + rawValue }
}
