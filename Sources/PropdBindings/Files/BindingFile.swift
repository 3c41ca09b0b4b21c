public import PropdCore

/// One `key = expression` of a binding file.
public struct BindingFileEntry: Sendable, Hashable {
    public var key: Key
    /// The expression with comments removed and surrounding blanks trimmed.
    public var expression: String
    /// Where the key starts, 1-based.
    public var line: Int
    public var column: Int
}

/// A binding file that cannot be loaded; it changes nothing.
/// `description` reads `file:line:column: message`, like a compiler's.
public struct BindingFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// The parser of `*.prop` binding files: lines `key = expression`; an
/// expression may continue on the following lines (any line that does not
/// start a new `key =` outside brackets); `#` starts a comment outside strings.
///
/// ```
/// # the login form
/// ui.login.enabled = combineLatest(form.account, form.password)
///     .map { a, p in len(a) > 5 && len(p) > 5 }
/// ```
public enum BindingFile {
    /// Parses and compiles every binding of `text` (cycles are checked when
    /// they are declared). Pure: the caller reads the file.
    public static func parse(_ text: String, fileName: String) throws(BindingFileError) -> [BindingFileEntry] {
        var entries: [BindingFileEntry] = []
        var seen: [Key: Int] = [:]
        var current: PendingEntry?
        var depth = 0
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = Substring(stripComment(rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine))
            if current != nil, depth > 0 {
                current?.lines.append(String(line))
                depth += bracketBalance(line)
                continue
            }
            if let start = assignment(in: line) {
                if let finished = current {
                    entries.append(try finished.compile(file: fileName, seen: &seen))
                }
                let keyText = String(line[start.key])
                let column = line.distance(from: line.startIndex, to: start.key.lowerBound) + 1
                guard let key = try? Key(keyText) else {
                    let reason = keyReason(keyText)
                    throw BindingFileError(file: fileName, line: lineNumber, column: column,
                        message: "'\(keyText)' is not a valid key: it \(reason)")
                }
                let rest = line[start.expression...]
                current = PendingEntry(key: key, line: lineNumber, column: column,
                    expressionColumn: line.distance(from: line.startIndex, to: start.expression) + 1,
                    lines: [String(rest)])
                depth = bracketBalance(rest)
                continue
            }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                current?.lines.append("")
                continue
            }
            guard current != nil else {
                let column = (line.firstIndex { $0 != " " && $0 != "\t" }).map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 1
                throw BindingFileError(file: fileName, line: lineNumber, column: column,
                    message: "expected 'key = expression'")
            }
            current?.lines.append(String(line))
            depth += bracketBalance(line)
        }
        if let finished = current { entries.append(try finished.compile(file: fileName, seen: &seen)) }
        return entries
    }

    private static func keyReason(_ text: String) -> String {
        do {
            _ = try Key(text)
            return ""
        } catch {
            return error.description
        }
    }

    /// `key =` at the start of a line (not `==`): the ranges of the key and of what follows `=`.
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

/// A binding being read, not yet compiled.
private struct PendingEntry {
    var key: Key
    var line: Int
    var column: Int
    /// The column of the first character after `=`.
    var expressionColumn: Int
    var lines: [String]

    func compile(file: String, seen: inout [Key: Int]) throws(BindingFileError) -> BindingFileEntry {
        if let earlier = seen[key] {
            throw BindingFileError(file: file, line: line, column: column,
                message: "'\(key)' is bound twice in this file (first at line \(earlier))")
        }
        seen[key] = line
        let text = lines.joined(separator: "\n")
        let expression = text.trimmingJSONWhitespace()
        guard !expression.isEmpty else {
            throw BindingFileError(file: file, line: line, column: expressionColumn,
                message: "expected an expression after '\(key) ='")
        }
        do {
            _ = try CompiledBinding(text)
        } catch {
            guard case .invalid(let message, let errorLine, let errorColumn) = error else {
                throw BindingFileError(file: file, line: line, column: column, message: error.description)
            }
            let fileLine = line + errorLine - 1
            let fileColumn = errorLine == 1 ? expressionColumn + errorColumn - 1 : errorColumn
            let plain = message.replacingFirst(" at \(errorLine):\(errorColumn)", with: "")
            throw BindingFileError(file: file, line: fileLine, column: fileColumn, message: plain)
        }
        return BindingFileEntry(key: key, expression: expression, line: line, column: column)
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}
