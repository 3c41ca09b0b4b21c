import PropdClient
import PropdCore

/// The JSON shapes of `--json` output: the io.propd types as they travel on
/// the wire, so a script reads the same fields whether it talks Varlink or
/// runs propctl.
enum WireJSON {
    static func property(_ p: Property) -> JSONValue { p.wireValue }

    static func event(_ e: Event) -> JSONValue { e.wireValue }

    /// A binding without its operator state (`dump` adds it back).
    static func binding(_ b: BindingInfo) -> JSONValue {
        var binding = b
        binding.state = nil
        return binding.wireValue
    }

    static func revision(_ r: Revision) -> JSONValue { .object(RevisionReply(revision: r).parameters) }

    /// Prints one compact JSON document and a newline. DEL and C1 controls,
    /// which JSON allows raw, are escaped too: the same document, safe on a terminal.
    static func print(_ value: JSONValue) {
        StandardStreams.out(TerminalText.escaped(value.jsonString) + "\n")
    }
}
