/// One `key = expression` of a `.prop` file, with where its parts are.
struct PropFileEntry: Sendable, Equatable {
    var key: String
    /// The expression without comments and surrounding blanks, as sent to Bind.
    var expression: String
    /// Where the key starts (1-based line and column, in characters).
    var line: Int
    var column: Int
    /// Where the expression's first character is in the file: the daemon's
    /// BindingInvalid positions are relative to it.
    var expressionLine: Int
    var expressionColumn: Int

    /// The file position of a position inside the expression.
    func filePosition(expressionLine l: Int, column c: Int) -> (line: Int, column: Int) {
        (expressionLine + l - 1, l == 1 ? expressionColumn + c - 1 : c)
    }
}

/// A `.prop` file propctl cannot split into bindings (nothing was sent).
struct PropFileError: Error, Sendable, Equatable {
    var line: Int
    var column: Int
    var message: String
}

/// Splits a binding file into `key = expression` entries, by the rules of
/// propd's own loader (PropdBindings' `BindingFile`, which propctl does not
/// link): a line starting with `key =` (not `==`) starts a binding; any other
/// non-blank line continues the expression, as does every line while
/// brackets are open; `#` starts a comment outside strings. Expressions are
/// not parsed here: the daemon checks them when they are bound.
enum PropFile {
    static func split(_ text: String) throws(PropFileError) -> [PropFileEntry] {
        var entries: [PropFileEntry] = []
        var seen: [String: Int] = [:]
        var current: Pending?
        var depth = 0
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = stripComment(rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine)
            if current != nil, depth > 0 {
                current?.lines.append(line)
                depth += bracketBalance(line)
                continue
            }
            if let start = assignment(in: line) {
                if let finished = current { entries.append(try finished.entry(seen: &seen)) }
                let column = line.distance(from: line.startIndex, to: start.key.lowerBound) + 1
                let rest = line[start.expression...]
                current = Pending(
                    key: String(line[start.key]), line: lineNumber, column: column,
                    firstLineColumn: line.distance(from: line.startIndex, to: start.expression) + 1,
                    lines: [rest])
                depth = bracketBalance(rest)
                continue
            }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                current?.lines.append("")
                continue
            }
            guard current != nil else {
                let column = (line.firstIndex { !$0.isBlank }).map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 1
                throw PropFileError(line: lineNumber, column: column, message: "expected 'key = expression'")
            }
            current?.lines.append(line)
            depth += bracketBalance(line)
        }
        if let finished = current { entries.append(try finished.entry(seen: &seen)) }
        return entries
    }

    /// `key =` at the start of a line (not `==`).
    private static func assignment(in line: Substring) -> (key: Range<Substring.Index>, expression: Substring.Index)? {
        guard let start = line.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return nil }
        var end = start
        while end < line.endIndex, isKeyCharacter(line[end]) { end = line.index(after: end) }
        guard end > start else { return nil }
        var equals = end
        while equals < line.endIndex, line[equals] == " " || line[equals] == "\t" { equals = line.index(after: equals) }
        guard equals < line.endIndex, line[equals] == "=" else { return nil }
        let after = line.index(after: equals)
        if after < line.endIndex, line[after] == "=" { return nil }
        return (start..<end, after)
    }

    private static func isKeyCharacter(_ c: Character) -> Bool {
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
    var key: String
    var line: Int
    var column: Int
    var firstLineColumn: Int
    var lines: [Substring]

    func entry(seen: inout [String: Int]) throws(PropFileError) -> PropFileEntry {
        if let earlier = seen[key] {
            throw PropFileError(line: line, column: column,
                message: "'\(key)' is bound twice in this file (first at line \(earlier))")
        }
        seen[key] = line
        // Where the first non-blank character of the expression is.
        for (offset, text) in lines.enumerated() {
            guard let first = text.firstIndex(where: { !$0.isBlank }) else { continue }
            let column = text.distance(from: text.startIndex, to: first) + 1
            let expression = lines.joined(separator: "\n").trimmingBlanks
            return PropFileEntry(
                key: key, expression: String(expression), line: line, column: self.column,
                expressionLine: line + offset,
                expressionColumn: offset == 0 ? firstLineColumn + column - 1 : column)
        }
        throw PropFileError(line: line, column: firstLineColumn, message: "expected an expression after '\(key) ='")
    }
}
