/// One `key = expression` of a binding file, split out but not parsed.
public struct BindingFileSection: Sendable, Hashable {
    public var key: Key
    /// Where the key starts (1-based line and column, in characters).
    public var line: Int
    public var column: Int
    /// Everything after `=` up to the next binding, comments removed, blanks kept.
    public var text: String
    /// The column of `text`'s first character (it starts on `line`).
    public var textColumn: Int
    /// `text` without surrounding blanks: what is bound.
    public var expression: String
    /// Where `expression`'s first character is in the file.
    public var expressionLine: Int
    public var expressionColumn: Int
}

/// Why a binding file cannot be split into bindings.
public struct BindingFileSyntaxError: Error, Sendable, Hashable {
    public var line: Int
    public var column: Int
    public var message: String
}

/// The text rules of `*.prop` binding files, shared by the daemon's loader
/// and propctl (which must not link the binding engine): a line starting with
/// `key =` (not `==`) starts a binding; any other non-blank line continues the
/// expression, as does every line while brackets are open; `#` starts a
/// comment outside strings; a key may be bound once per file.
///
/// ```
/// # the login form
/// ui.login.enabled = combineLatest(form.account, form.password)
///     .map { a, p in len(a) > 5 && len(p) > 5 }
/// ```
public enum BindingFileSplitter {
    public static func split(_ text: String) throws(BindingFileSyntaxError) -> [BindingFileSection] {
        var sections: [BindingFileSection] = []
        var seen: [Key: Int] = [:]
        var current: Pending?
        var depth = 0
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = stripComment(rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine)
            if current != nil, depth > 0 {
                current?.lines.append(line)
                depth += bracketBalance(line)
                continue
            }
            if let start = assignment(in: line) {
                if let finished = current { sections.append(try finished.section(seen: &seen)) }
                let keyText = String(line[start.key])
                let column = line.distance(from: line.startIndex, to: start.key.lowerBound) + 1
                let key: Key
                do {
                    key = try Key(keyText)
                } catch {
                    throw BindingFileSyntaxError(
                        line: lineNumber, column: column, message: "'\(keyText)' is not a valid key: it \(error)")
                }
                let rest = line[start.expression...]
                current = Pending(
                    key: key, line: lineNumber, column: column,
                    textColumn: line.distance(from: line.startIndex, to: start.expression) + 1, lines: [rest])
                depth = bracketBalance(rest)
                continue
            }
            if line.allSatisfy(isBlank) {
                current?.lines.append("")
                continue
            }
            guard current != nil else {
                let column = line.firstIndex { !isBlank($0) }.map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 1
                throw BindingFileSyntaxError(line: lineNumber, column: column, message: "expected 'key = expression'")
            }
            current?.lines.append(line)
            depth += bracketBalance(line)
        }
        if let finished = current { sections.append(try finished.section(seen: &seen)) }
        return sections
    }

    static func isBlank(_ c: Character) -> Bool { c == " " || c == "\t" }

    /// `key =` at the start of a line (not `==`): the ranges of the key and of what follows `=`.
    static func assignment(in line: Substring) -> (key: Range<Substring.Index>, expression: Substring.Index)? {
        guard let start = line.firstIndex(where: { !isBlank($0) }) else { return nil }
        var end = start
        while end < line.endIndex, isKeyCharacter(line[end]) { end = line.index(after: end) }
        guard end > start else { return nil }
        var equals = end
        while equals < line.endIndex, isBlank(line[equals]) { equals = line.index(after: equals) }
        guard equals < line.endIndex, line[equals] == "=" else { return nil }
        let after = line.index(after: equals)
        if after < line.endIndex, line[after] == "=" { return nil }
        return (start..<end, after)
    }

    static func isKeyCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-" || c == "." || c == "*")
    }

    /// The line without its `#` comment (a `#` inside a string is kept).
    static func stripComment(_ line: Substring) -> Substring {
        var inString = false
        var escaped = false
        for index in line.indices {
            let c = line[index]
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "#" {
                return line[..<index]
            }
        }
        return line
    }

    /// Opening minus closing brackets outside strings.
    static func bracketBalance(_ text: Substring) -> Int {
        var balance = 0
        var inString = false
        var escaped = false
        for c in text {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            switch c {
            case "\"": inString = true
            case "(", "[", "{": balance += 1
            case ")", "]", "}": balance -= 1
            default: break
            }
        }
        return balance
    }
}

/// A binding being read: its lines after `=`, not yet trimmed.
private struct Pending {
    var key: Key
    var line: Int
    var column: Int
    var textColumn: Int
    var lines: [Substring]

    func section(seen: inout [Key: Int]) throws(BindingFileSyntaxError) -> BindingFileSection {
        if let earlier = seen[key] {
            throw BindingFileSyntaxError(
                line: line, column: column, message: "'\(key)' is bound twice in this file (first at line \(earlier))")
        }
        seen[key] = line
        let text = lines.joined(separator: "\n")
        var expression = Substring(text)
        while let first = expression.first, first.isWhitespace { expression.removeFirst() }
        while let last = expression.last, last.isWhitespace { expression.removeLast() }
        for (offset, part) in lines.enumerated() {
            guard let first = part.firstIndex(where: { !$0.isWhitespace }) else { continue }
            let column = part.distance(from: part.startIndex, to: first) + 1
            return BindingFileSection(
                key: key, line: line, column: self.column, text: text, textColumn: textColumn,
                expression: String(expression),
                expressionLine: line + offset, expressionColumn: offset == 0 ? textColumn + column - 1 : column)
        }
        throw BindingFileSyntaxError(line: line, column: textColumn, message: "expected an expression after '\(key) ='")
    }
}
