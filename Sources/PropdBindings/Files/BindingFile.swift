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
    /// they are declared). Pure: the caller reads the file. The text rules
    /// are ``BindingFileSplitter``'s, which propctl shares.
    public static func parse(_ text: String, fileName: String) throws(BindingFileError) -> [BindingFileEntry] {
        let sections: [BindingFileSection]
        do {
            sections = try BindingFileSplitter.split(text)
        } catch {
            throw BindingFileError(file: fileName, line: error.line, column: error.column, message: error.message)
        }
        var entries: [BindingFileEntry] = []
        entries.reserveCapacity(sections.count)
        for section in sections {
            do {
                _ = try CompiledBinding(section.text)
            } catch {
                guard case .invalid(let message, let errorLine, let errorColumn) = error else {
                    throw BindingFileError(
                        file: fileName, line: section.line, column: section.column, message: error.description)
                }
                // Positions are relative to the text after `=`, which starts on the key's line.
                let fileLine = section.line + errorLine - 1
                let fileColumn = errorLine == 1 ? section.textColumn + errorColumn - 1 : errorColumn
                let plain = message.replacingFirst(" at \(errorLine):\(errorColumn)", with: "")
                throw BindingFileError(file: fileName, line: fileLine, column: fileColumn, message: plain)
            }
            entries.append(
                BindingFileEntry(key: section.key, expression: section.expression, line: section.line, column: section.column))
        }
        return entries
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
