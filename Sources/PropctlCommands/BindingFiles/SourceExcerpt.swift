/// The offending line of a text with a caret under the column, as
/// compilers show it:
///
/// ```
/// rules.prop:3:18: error: unknown operator 'mapp'
///  3 | ui.x = room.temp.mapp { $0 }
///    |                  ^
/// ```
enum SourceExcerpt {
    static func lines(of text: String, line: Int, column: Int, style: Style) -> [String] {
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= all.count else { return [] }
        var source = all[line - 1]
        if source.hasSuffix("\r") { source = source.dropLast() }
        // Tabs stay tabs under the caret so it lines up in any tab width.
        let lead = source.prefix(max(0, column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
        let number = String(line)
        let gutter = String(repeating: " ", count: number.count)
        return [
            " \(number) | \(source)",
            " \(gutter) | \(lead)" + style.red("^"),
        ]
    }

    /// `message` without the ` at L:C` the daemon appends (the position is
    /// shown separately, mapped to the file).
    static func plainMessage(_ message: String, line: Int, column: Int) -> String {
        let suffix = " at \(line):\(column)"
        guard let range = message.firstRange(of: suffix) else { return message }
        var copy = message
        copy.removeSubrange(range)
        return copy
    }
}
