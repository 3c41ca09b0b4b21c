/// Prints figures as a table or as JSON.
enum Report {
    static func print(_ figures: [Figure], json: Bool, context: [String: String]) {
        json ? printJSON(figures, context: context) : printTable(figures, context: context)
    }

    static func printTable(_ figures: [Figure], context: [String: String]) {
        for (key, value) in context.sorted(by: { $0.key < $1.key }) { Swift.print("# \(key): \(value)") }
        let header = ["figure", "median", "unit", "runs", "target", "verdict", "load (1 min) per run"]
        let rows = figures.map { figure in
            [
                figure.name, formatted(figure.median), figure.unit,
                figure.values.map(formatted).joined(separator: " / "),
                figure.target?.text ?? "", figure.verdict,
                figure.loads.map(formatted).joined(separator: " / "),
            ]
        }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1 + String(repeating: " ", count: max(0, widths[$0] - $1.count)) }
                .joined(separator: " | ") + " |"
        }
        Swift.print(line(header))
        Swift.print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
        for row in rows { Swift.print(line(row)) }
    }

    static func printJSON(_ figures: [Figure], context: [String: String]) {
        var out = "{"
        out += context.sorted(by: { $0.key < $1.key }).map { "\(quoted($0.key)):\(quoted($0.value))," }.joined()
        out += #""figures":["#
        out += figures.map { figure in
            var object = "{\"name\":\(quoted(figure.name)),\"unit\":\(quoted(figure.unit)),"
            object += "\"median\":\(number(figure.median)),"
            object += "\"runs\":[\(figure.values.map(number).joined(separator: ","))],"
            object += "\"loads\":[\(figure.loads.map(number).joined(separator: ","))]"
            if let target = figure.target {
                object += ",\"target\":\(quoted(target.text)),\"met\":\(target.isMet(by: figure.median))"
            }
            return object + "}"
        }.joined(separator: ",")
        out += "]}"
        Swift.print(out)
    }

    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
