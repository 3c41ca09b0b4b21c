/// Rows printed in aligned columns. Widths are measured on the plain text,
/// so colouring a cell does not break the alignment.
struct Table {
    /// One cell; its text is stored with control characters escaped
    /// (``TerminalText``), so no value can drive the reader's terminal.
    struct Cell {
        var text: String
        var paint: (String) -> String

        init(text: String, paint: @escaping (String) -> String = { $0 }) {
            self.text = TerminalText.escaped(text)
            self.paint = paint
        }
    }

    var header: [String]?
    var rows: [[Cell]] = []
    var style: Style

    init(header: [String]? = nil, style: Style) {
        self.header = header
        self.style = style
    }

    mutating func append(_ cells: [Cell]) { rows.append(cells) }

    /// The table as text, one line per row, columns two spaces apart; the
    /// last column is not padded.
    func render() -> String {
        let all = (header.map { [$0.map { Cell(text: $0) }] } ?? []) + rows
        var widths: [Int] = []
        for row in all {
            for (i, cell) in row.enumerated() {
                let width = cell.text.count
                if i < widths.count { widths[i] = max(widths[i], width) } else { widths.append(width) }
            }
        }
        var out = ""
        for (r, row) in all.enumerated() {
            var line = ""
            for (i, cell) in row.enumerated() {
                let isHeader = r == 0 && header != nil
                let painted = isHeader ? style.dim(cell.text) : cell.paint(cell.text)
                line += painted
                if i < row.count - 1 {
                    line += String(repeating: " ", count: widths[i] - cell.text.count + 2)
                }
            }
            // Padding before empty trailing cells would leave blanks at the end.
            while line.last == " " { line.removeLast() }
            out += line + "\n"
        }
        return out
    }
}
