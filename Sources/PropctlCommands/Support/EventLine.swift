import PropdCore

/// How an event reads to a person, in `watch` and `history`.
enum EventLine {
    static func cells(_ e: Event, style: Style, withKey: Bool) -> [Table.Cell] {
        let kindPaint: (String) -> String
        let detail: String
        switch e.kind {
        case .set:
            kindPaint = { style.green($0) }
            detail = ValueArgument.cell(e.value)
        case .initial, .replay:
            kindPaint = { style.dim($0) }
            detail = ValueArgument.cell(e.value)
        case .delete:
            kindPaint = { style.yellow($0) }
            detail = ""
        case .error:
            kindPaint = { style.red($0) }
            detail = e.error ?? ""
        case .synced:
            kindPaint = { style.dim($0) }
            detail = ""
        }
        var cells: [Table.Cell] = [.init(text: String(e.revision.rawValue), paint: style.dim)]
        if withKey { cells.append(.init(text: e.key, paint: style.bold)) }
        cells.append(.init(text: e.kind.rawValue, paint: kindPaint))
        cells.append(.init(text: detail, paint: { e.kind == .error ? style.red($0) : $0 }))
        return cells
    }
}
