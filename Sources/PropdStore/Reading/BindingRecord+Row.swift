import GRDB
import PropdCore

extension BindingRecord {
    /// From a row of `key, expression, sources, revision`.
    init(row: Row, path: String) throws {
        self.init(
            key: try PropertyRow.key(row, 0, path: path),
            expression: row[1],
            sources: try PropertyRow.keys(fromJSON: row[2], path: path),
            revision: Revision(row[3] as Int64)
        )
    }
}
