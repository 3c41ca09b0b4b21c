import Logging

/// How message text and metadata are written so one message stays one line
/// and `key=value` pairs stay parseable.
enum LogText {
    /// Escapes line breaks (and other control characters) so nothing starts a new line.
    static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            result += escape(scalar)
        }
        return result
    }

    /// A key or value as written after `key=`: bare when it is a plain word,
    /// else double-quoted with `\"`, `\\` and control characters escaped.
    static func field(_ text: String) -> String {
        let plain = !text.isEmpty && !text.unicodeScalars.contains { isControl($0) || $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" }
        if plain { return text }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result += escape(scalar)
            }
        }
        return result + "\""
    }

    static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let convertible): return convertible.description
        case .array(let values): return "[" + values.map(render).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            return "{" + entries.keys.sorted().compactMap { key in entries[key].map { "\(key)=\(render($0))" } }.joined(separator: ", ") + "}"
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            guard isControl(scalar) else { return String(scalar) }
            let hex = String(scalar.value, radix: 16)
            return "\\x" + (hex.count < 2 ? "0" + hex : hex)
        }
    }
}
