/// Text from the daemon made safe to show on a terminal: every control
/// character — C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F) — is
/// written as a `\uXXXX` escape, so a value cannot move the cursor, change
/// colours or retitle the terminal of the person reading it.
enum TerminalText {
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    /// `text` with each control character replaced by `\uXXXX`. JSON text
    /// stays valid JSON with the same meaning (JSON already escapes C0).
    ///
    /// - Parameter keepingNewlines: leave `\n` as it is, for documents whose
    ///   lines are their structure (a dump, a DOT graph); the values in them
    ///   are already escaped by their format or by this function.
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard hasControl(text) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar), !(keepingNewlines && scalar == "\n") {
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
