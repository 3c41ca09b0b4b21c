import PropdCore

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

/// Splits a binding file into `key = expression` entries by the rules
/// propd's own loader uses (``BindingFileSplitter`` in PropdCore). Expressions
/// are not parsed here: the daemon checks them when they are bound.
enum PropFile {
    static func split(_ text: String) throws(PropFileError) -> [PropFileEntry] {
        do {
            return try BindingFileSplitter.split(text).map { section in
                PropFileEntry(
                    key: section.key.rawValue, expression: section.expression, line: section.line,
                    column: section.column, expressionLine: section.expressionLine,
                    expressionColumn: section.expressionColumn)
            }
        } catch {
            throw PropFileError(line: error.line, column: error.column, message: error.message)
        }
    }
}
