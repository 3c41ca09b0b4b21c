import PropdCore

/// How a VALUE argument of `set` becomes a JSON value (contract 6.4):
///
/// - `-` reads the value from standard input, `@FILE` from a file (one
///   trailing newline is dropped, as `$(...)` does); the text then follows
///   the rules below.
/// - Text that parses as JSON is that JSON (`21.5`, `true`, `[1,2]`, `"21"`).
/// - Text that looks like JSON — it starts with `{`, `[`, `"`, a digit or `-`
///   — but does not parse is refused (a usage error), so a typo such as
///   `{"mode": eco}` is never stored as a string.
/// - Anything else is the text as a string (`Ada`, `hello world`).
///
/// `--string` stores the text as a string whatever it looks like;
/// `--strict` refuses every text that is not JSON.
struct ValueArgument {
    enum Mode: Sendable {
        case inferred, string, strict
    }

    var mode: Mode
    private var stdinTaken = false

    init(mode: Mode) { self.mode = mode }

    /// The value `argument` stands for, as the value of `key`.
    mutating func value(of argument: String, for key: String) throws(PropctlFailure) -> JSONValue {
        let text: String
        if argument == "-" {
            guard !stdinTaken else { throw .usage("only one VALUE can be read from standard input ('-')") }
            stdinTaken = true
            text = Self.droppingFinalNewline(try TextFile.read("-"))
        } else if argument.hasPrefix("@"), argument.count > 1 {
            text = Self.droppingFinalNewline(try TextFile.read(String(argument.dropFirst())))
        } else {
            text = argument
        }
        return try Self.interpret(text, for: key, mode: mode)
    }

    static func interpret(_ text: String, for key: String, mode: Mode) throws(PropctlFailure) -> JSONValue {
        if mode == .string { return .string(text) }
        let parseError: String
        do {
            return try JSONValue(parsing: text)
        } catch {
            parseError = "\(error)"
        }
        let excerpt = TerminalText.escaped(text.count > 40 ? String(text.prefix(40)) + "…" : text)
        if mode == .strict {
            throw .usage("the value of \(key) is not JSON (--strict): \(excerpt): \(parseError)")
        }
        if looksLikeJSON(text) {
            throw .usage(
                "the value of \(key) looks like JSON but does not parse: \(excerpt): \(parseError)",
                ["hint: give --string to store it as text, or quote it as a JSON string"])
        }
        return .string(text)
    }

    /// Whether `text` starts (after blanks) with `{`, `[`, `"`, a digit or `-`.
    static func looksLikeJSON(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first(where: { !" \t\r\n".unicodeScalars.contains($0) }) else {
            return false
        }
        return "{[\"-".unicodeScalars.contains(first) || ("0"..."9").contains(first)
    }

    static func droppingFinalNewline(_ text: String) -> String {
        if text.hasSuffix("\r\n") { return String(text.dropLast(2)) }  // "\r\n" is one Character
        if text.hasSuffix("\n") { return String(text.dropLast()) }
        return text
    }

    /// How `get` shows a value to a person: strings raw (so `$(propctl get
    /// name)` is `Ada`, not `"Ada"`), everything else as JSON.
    static func display(_ value: JSONValue?) -> String {
        switch value {
        case nil: return ""
        case .string(let s)?: return s
        case let other?: return TerminalText.escaped(other.jsonString)
        }
    }

    /// Like ``display(_:)`` but safe on a terminal and in a table row: a
    /// string holding a control character is shown as a JSON string with
    /// every control character (C0, DEL, C1) escaped.
    static func cell(_ value: JSONValue?) -> String {
        if case .string(let s)? = value, TerminalText.hasControl(s) {
            return TerminalText.escaped(JSONValue.string(s).jsonString)
        }
        return display(value)
    }
}
